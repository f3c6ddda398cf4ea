/**
 * The conformance demo agent (issue 13 item 9): the reference fixtures the official MCP
 * conformance suite (`@modelcontextprotocol/conformance`, server scenarios) expects, under the
 * exact names it calls — tools (`test_simple_text`, `test_image_content`, …), resources
 * (`test://static-text`, …) and prompts (`test_simple_prompt`, …). Verbs are
 * `conformance.<fixture>`; each names its MCP tool with the projection hint `mcp:tool`
 * `{name}` and, where the fixture answers MCP content (images, audio, embedded resources),
 * declares `{content: true}`: its output is the MCP tool result itself (MCP-40).
 * The sampling and elicitation fixtures use `ctx.sample` (MCP-51) and `ctx.requestInput`
 * (asked of the client as `elicitation/create`, MCP-50).
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
  /** False when the same input may answer differently (it asks the client). @default true */
  readonly deterministic?: boolean;
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

/** An object schema of the fixtures' own (strings required unless said). */
function objectOf(properties: JsonObject, required: readonly string[] = Object.keys(properties)): JsonObject {
  return { $schema: SCHEMA, type: 'object', properties, required: [...required] };
}

/** The string `key` of an (object) input, `''` when it is not one. */
function stringOf(input: JsonValue, key: string): string {
  const value = typeof input === 'object' && input !== null && !Array.isArray(input) ? input[key] : undefined;
  return typeof value === 'string' ? value : '';
}

/** The text of a sampled message's content (a block or an array of blocks). */
function sampledText(content: JsonValue): string {
  const blocks = Array.isArray(content) ? content : [content];
  return blocks
    .map((b) =>
      typeof b === 'object' && b !== null && !Array.isArray(b) && typeof b['text'] === 'string'
        ? b['text']
        : '',
    )
    .join('');
}

/** SEP-1034: a default for every primitive type. */
const DEFAULTS_SCHEMA = objectOf(
  {
    name: { type: 'string', description: 'Your name', default: 'John Doe' },
    age: { type: 'integer', description: 'Your age', default: 30 },
    score: { type: 'number', description: 'Your score', default: 95.5 },
    status: {
      type: 'string',
      description: 'Your status',
      enum: ['active', 'inactive', 'pending'],
      default: 'active',
    },
    verified: { type: 'boolean', description: 'Verified', default: true },
  },
  [],
);

/** SEP-1330: the five enum forms. */
const ENUMS_SCHEMA = objectOf(
  {
    untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
    titledSingle: {
      type: 'string',
      oneOf: [
        { const: 'value1', title: 'First Option' },
        { const: 'value2', title: 'Second Option' },
        { const: 'value3', title: 'Third Option' },
      ],
    },
    legacyEnum: {
      type: 'string',
      enum: ['opt1', 'opt2', 'opt3'],
      enumNames: ['Option One', 'Option Two', 'Option Three'],
    },
    untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
    titledMulti: {
      type: 'array',
      items: {
        anyOf: [
          { const: 'value1', title: 'First Choice' },
          { const: 'value2', title: 'Second Choice' },
          { const: 'value3', title: 'Third Choice' },
        ],
      },
    },
  },
  [],
);

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
    verb: 'sampling',
    tool: 'test_sampling',
    description: "Asks the calling client's model to answer the prompt (sampling/createMessage).",
    input: objectOf({ prompt: { type: 'string', description: 'The prompt to send to the LLM' } }),
    content: true,
    deterministic: false,
    run: async (input, context) => {
      const prompt = stringOf(input, 'prompt');
      const answer = await context.sample({
        messages: [{ role: 'user', content: text(prompt) }],
        maxTokens: 100,
      });
      return { content: [text(`LLM response: ${sampledText(answer.content)}`)] };
    },
  },
  {
    verb: 'elicitation',
    tool: 'test_elicitation',
    description: 'Asks the user for a username and an email address (elicitation/create).',
    input: objectOf({ message: { type: 'string', description: 'The message to show the user' } }),
    content: true,
    deterministic: false,
    run: async (input, context) => {
      const message = stringOf(input, 'message');
      const answer = await context.requestInput(message, {
        schema: objectOf({
          username: { type: 'string', description: "User's response" },
          email: { type: 'string', description: "User's email address" },
        }),
      });
      return { content: [text(`User response: action=accept, content=${JSON.stringify(answer)}`)] };
    },
  },
  {
    verb: 'elicitation_sep1034_defaults',
    tool: 'test_elicitation_sep1034_defaults',
    description: 'Asks for a form whose fields all have defaults (SEP-1034).',
    content: true,
    deterministic: false,
    run: async (_input, context) => {
      const answer = await context.requestInput('Please review and update the form fields with defaults', {
        schema: DEFAULTS_SCHEMA,
      });
      return { content: [text(`Elicitation completed: action=accept, content=${JSON.stringify(answer)}`)] };
    },
  },
  {
    verb: 'elicitation_sep1330_enums',
    tool: 'test_elicitation_sep1330_enums',
    description: 'Asks for a form with the five enum forms (SEP-1330).',
    content: true,
    deterministic: false,
    run: async (_input, context) => {
      const answer = await context.requestInput('Please select options from the enum fields', {
        schema: ENUMS_SCHEMA,
      });
      return { content: [text(`Elicitation completed: action=accept, content=${JSON.stringify(answer)}`)] };
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
    deterministic: f.verb !== 'error_handling' && f.deterministic !== false,
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
