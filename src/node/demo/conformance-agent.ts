/**
 * The conformance demo agent (issue 13 item 9): the reference fixtures the official MCP
 * conformance suite (`@modelcontextprotocol/conformance`, server scenarios) expects, under the
 * exact names it calls — tools (`test_simple_text`, `test_image_content`, …), resources
 * (`test://static-text`, …) and prompts (`test_simple_prompt`, …). Verbs are
 * `conformance.<fixture>`; each names its MCP tool with the projection hint `mcp:tool`
 * `{name}` and, where the fixture answers MCP content (images, audio, embedded resources),
 * declares `{content: true}`: its output is the MCP tool result itself (MCP-40).
 * Not here: the sampling and elicitation fixtures — a verb cannot yet send a request to the
 * MCP client that called it (test/interop/mcp-conformance/expected-failures.yml).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { PlexusError } from '../../core/errors.js';
import type { JsonObject, JsonValue } from '../../core/json.js';
import type { AgentCapability } from '../../core/records/agent-card.js';
import type { VerbSpec } from '../../core/records/verb-spec.js';
import type { JsonSchema } from '../../core/schema-validator.js';
import type { AgentPrompt, AgentResource } from '../../runtime/agents/agent-offerings.js';
import { abortError, defineAgent, type AgentDefinition, type HandlerContext } from '../../runtime/index.js';

/** The id of the conformance agent (and its verbs' namespace). */
export const CONFORMANCE_AGENT_ID = 'conformance';

const SCHEMA = 'https://json-schema.org/draft/2020-12/schema';

/** A 1×1 red PNG. */
const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** A WAV file (PCM, mono, 8 kHz, 8 bit) of `samples` samples of silence. */
function silentWav(samples: number): Buffer {
  const wav = Buffer.alloc(44 + samples, 0x80);
  wav.write('RIFF', 0, 'ascii');
  wav.writeUInt32LE(36 + samples, 4);
  wav.write('WAVEfmt ', 8, 'ascii');
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20);
  wav.writeUInt16LE(1, 22);
  wav.writeUInt32LE(8000, 24);
  wav.writeUInt32LE(8000, 28);
  wav.writeUInt16LE(1, 32);
  wav.writeUInt16LE(8, 34);
  wav.write('data', 36, 'ascii');
  wav.writeUInt32LE(samples, 40);
  return wav;
}

const WAV_BASE64 = silentWav(800).toString('base64');

const NO_ARGUMENTS: JsonSchema = { $schema: SCHEMA, type: 'object', additionalProperties: false };

/** The output schema of a verb that answers an MCP tool result. */
const TOOL_RESULT: JsonSchema = {
  $schema: SCHEMA,
  type: 'object',
  required: ['content'],
  properties: { content: { type: 'array', items: { type: 'object', required: ['type'] } } },
};

const DONE_TEXT: JsonSchema = {
  $schema: SCHEMA,
  type: 'object',
  required: ['done'],
  properties: { done: { type: 'string' } },
};

interface Fixture {
  /** The verb's last segment. */
  readonly verb: string;
  /** The MCP tool name the suite calls. */
  readonly tool: string;
  readonly description: string;
  readonly input?: JsonSchema;
  readonly output?: JsonSchema;
  /** True when the output is an MCP tool result (`mcp:tool` `{content: true}`). */
  readonly content?: boolean;
  run(input: JsonValue, context: HandlerContext): JsonValue | Promise<JsonValue>;
}

function text(value: string): JsonObject {
  return { type: 'text', text: value };
}

/** Waits `ms`, or throws the job's abort error when it is cancelled. */
async function pause(ms: number, context: HandlerContext): Promise<void> {
  try {
    await sleep(ms, undefined, { signal: context.signal });
  } catch {
    throw abortError(context.signal, `${CONFORMANCE_AGENT_ID} (job ${context.jobId})`);
  }
}

const FIXTURES: readonly Fixture[] = [
  {
    verb: 'simple_text',
    tool: 'test_simple_text',
    description: 'Returns one text content block.',
    content: true,
    run: () => ({ content: [text('This is a simple text response for testing.')] }),
  },
  {
    verb: 'image_content',
    tool: 'test_image_content',
    description: 'Returns one image content block (a 1x1 PNG).',
    content: true,
    run: () => ({ content: [{ type: 'image', data: PNG_BASE64, mimeType: 'image/png' }] }),
  },
  {
    verb: 'audio_content',
    tool: 'test_audio_content',
    description: 'Returns one audio content block (a short silent WAV).',
    content: true,
    run: () => ({ content: [{ type: 'audio', data: WAV_BASE64, mimeType: 'audio/wav' }] }),
  },
  {
    verb: 'embedded_resource',
    tool: 'test_embedded_resource',
    description: 'Returns one embedded text resource.',
    content: true,
    run: () => ({
      content: [
        {
          type: 'resource',
          resource: {
            uri: 'test://embedded-resource',
            mimeType: 'text/plain',
            text: 'This is an embedded resource content.',
          },
        },
      ],
    }),
  },
  {
    verb: 'multiple_content_types',
    tool: 'test_multiple_content_types',
    description: 'Returns text, image and embedded resource content blocks.',
    content: true,
    run: () => ({
      content: [
        text('Multiple content types test:'),
        { type: 'image', data: PNG_BASE64, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: {
            uri: 'test://mixed-content-resource',
            mimeType: 'application/json',
            text: JSON.stringify({ test: 'data', value: 123 }),
          },
        },
      ],
    }),
  },
  {
    verb: 'tool_with_logging',
    tool: 'test_tool_with_logging',
    description:
      'Reports three steps 50 ms apart; a session with a logging level gets each as a log message.',
    output: DONE_TEXT,
    run: async (_input, context) => {
      context.progress({ message: 'Tool execution started' });
      await pause(50, context);
      context.progress({ message: 'Tool processing data' });
      await pause(50, context);
      context.progress({ message: 'Tool execution completed' });
      return { done: 'Tool with logging executed successfully' };
    },
  },
  {
    verb: 'tool_with_progress',
    tool: 'test_tool_with_progress',
    description: 'Reports progress 0/100, 50/100 and 100/100, 50 ms apart.',
    output: DONE_TEXT,
    run: async (_input, context) => {
      context.progress({ progress: 0, total: 100 });
      await pause(50, context);
      context.progress({ progress: 50, total: 100 });
      await pause(50, context);
      context.progress({ progress: 100, total: 100 });
      return { done: 'Tool with progress executed successfully' };
    },
  },
  {
    verb: 'error_handling',
    tool: 'test_error_handling',
    description: 'Always fails.',
    output: DONE_TEXT,
    run: () => {
      throw new PlexusError('INTERNAL', 'This tool intentionally returns an error for testing');
    },
  },
  {
    verb: 'json_schema_2020_12',
    tool: 'json_schema_2020_12_tool',
    description: 'Tool with JSON Schema 2020-12 features',
    input: {
      $schema: SCHEMA,
      type: 'object',
      $defs: {
        address: {
          type: 'object',
          properties: { street: { type: 'string' }, city: { type: 'string' } },
        },
      },
      properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
      additionalProperties: false,
    },
    output: DONE_TEXT,
    run: (input) => ({ done: `Received ${JSON.stringify(input)}` }),
  },
];

function capabilityOf(f: Fixture): AgentCapability {
  return {
    verb: `${CONFORMANCE_AGENT_ID}.${f.verb}`,
    description: f.description,
    input: f.input ?? NO_ARGUMENTS,
    output: f.output ?? TOOL_RESULT,
  };
}

function specOf(f: Fixture): VerbSpec {
  const capability = capabilityOf(f);
  return {
    name: capability.verb,
    version: 1,
    status: 'stable',
    input: f.input ?? NO_ARGUMENTS,
    output: f.output ?? TOOL_RESULT,
    effects: {},
    capabilities: [`${CONFORMANCE_AGENT_ID}:read`],
    category: 'query',
    deterministic: f.verb !== 'error_handling',
    description: f.description,
    projection: { 'mcp:tool': { name: f.tool, ...(f.content === true ? { content: true } : {}) } },
  };
}

const STATIC_TEXT = 'This is the content of the static text resource.';

/** The resources the suite reads and subscribes to. */
function conformanceResources(): AgentResource[] {
  return [
    {
      uri: 'test://static-text',
      name: 'static-text',
      mimeType: 'text/plain',
      description: 'A fixed text resource.',
      load: () => STATIC_TEXT,
    },
    {
      uri: 'test://static-binary',
      name: 'static-binary',
      mimeType: 'image/png',
      description: 'A fixed binary resource (a 1x1 PNG).',
      load: () => new Uint8Array(Buffer.from(PNG_BASE64, 'base64')),
    },
    {
      uri: 'test://watched-resource',
      name: 'watched-resource',
      mimeType: 'text/plain',
      description: 'A resource clients may subscribe to.',
      load: () => 'Watched resource content',
    },
    {
      template: 'test://template/{id}/data',
      name: 'template-data',
      mimeType: 'application/json',
      description: 'Data for one id, the id substituted from the URI.',
      load: (_uri, { id = '' }) => ({ id, templateTest: true, data: `Data for ID: ${id}` }),
    },
  ];
}

const COMPLETIONS = ['paris', 'park', 'party'];

/** The prompts the suite lists and gets. */
function conformancePrompts(): AgentPrompt[] {
  return [
    {
      name: 'test_simple_prompt',
      description: 'A prompt without arguments.',
      arguments: [],
      render: () => 'This is a simple prompt for testing.',
    },
    {
      name: 'test_prompt_with_arguments',
      description: 'A prompt with two required arguments.',
      arguments: [
        {
          name: 'arg1',
          description: 'First test argument',
          required: true,
          complete: (value) => COMPLETIONS.filter((c) => c.startsWith(value)),
        },
        { name: 'arg2', description: 'Second test argument', required: true },
      ],
      render: ({ arg1 = '', arg2 = '' }) => `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`,
    },
    {
      name: 'test_prompt_with_embedded_resource',
      description: 'A prompt embedding the resource named by its argument.',
      arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
      render: ({ resourceUri = '' }) => [
        {
          role: 'user',
          content: {
            type: 'resource',
            resource: {
              uri: resourceUri,
              mimeType: 'text/plain',
              text: 'Embedded resource content for testing.',
            },
          },
        },
        { role: 'user', content: text('Please process the embedded resource above.') },
      ],
    },
    {
      name: 'test_prompt_with_image',
      description: 'A prompt with an image.',
      arguments: [],
      render: () => [
        { role: 'user', content: { type: 'image', data: PNG_BASE64, mimeType: 'image/png' } },
        { role: 'user', content: text('Please analyze the image above.') },
      ],
    },
  ];
}

/** The conformance agent: every fixture of the MCP conformance suite's server scenarios. */
export function conformanceAgent(): AgentDefinition {
  return defineAgent({
    card: {
      id: CONFORMANCE_AGENT_ID,
      name: 'MCP conformance fixtures',
      version: '1.0.0',
      tier: 'L3',
      description:
        'The tools, resources and prompts the official MCP conformance suite calls (test_simple_text, test://static-text, test_simple_prompt, …).',
      capabilities: FIXTURES.map(capabilityOf),
      protocols: ['esrp', 'emergence', 'jsonrpc'],
    },
    verbs: FIXTURES.map(specOf),
    create: () =>
      Object.fromEntries(
        FIXTURES.map((f) => [
          `${CONFORMANCE_AGENT_ID}.${f.verb}`,
          (input: JsonValue, context: HandlerContext) => f.run(input, context),
        ]),
      ),
    resources: conformanceResources(),
    prompts: conformancePrompts(),
  });
}
