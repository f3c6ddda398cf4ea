/**
 * The TCK demo agent (issue 14 item 5; docs/decisions/a2a.md A2A-15): the system-under-test
 * behaviours the A2A TCK (`a2aproject/a2a-tck`, branch 1.0-dev, `scenarios/*.feature`) expects,
 * selected — as the TCK's own SUTs do — by the prefix of the `messageId` of the A2A message that
 * started the task (`tck-complete-task-…`, `tck-input-required-…`, …).
 *
 * Routing, with nothing TCK-specific in the A2A face: the agent has one verb, `tck.run`, whose
 * input is one text field, so a text-only message sent to its endpoint (`/agents/tck/a2a`; its
 * card at `/agents/tck/.well-known/agent-card.json`) runs it by the face's text rule (A2A-6).
 * The handler reads the starting message from its request envelope, where the A2A face puts it
 * (A2A-7), and looks the scenario up by the longest matching prefix; called from another face,
 * or with an unknown prefix, it completes with a text saying so (the TCK SUTs' default).
 *
 * What a Plexus job cannot do is mapped to the nearest it can (A2A-15): a task's artifacts are
 * its output (a text part for a string, else a data part), so the file scenarios answer a data
 * part describing the file, the "message response" scenario a completed task, a chunked
 * artifact one whole artifact after a progress update per chunk; and a handler cannot reject a
 * task, so `tck-reject-task` fails it (`FORBIDDEN`).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { PlexusError } from '../../core/errors.js';
import type { JsonValue } from '../../core/json.js';
import type { AgentCapability } from '../../core/records/agent-card.js';
import type { JsonSchema } from '../../core/schema-validator.js';
import { abortError, defineAgent, type AgentDefinition, type HandlerContext } from '../../runtime/index.js';
import { requestMessage } from '../../transports/a2a/task-of-job.js';

/** The id of the TCK agent (and its verb's namespace). */
export const TCK_AGENT_ID = 'tck';
/** Its one verb. */
export const TCK_VERB = 'tck.run';
/** How long the resubscription scenario works, ms (twice the TCK's 2 s streaming timeout). */
export const TCK_LONG_TASK_MS = 4000;
/** The longest text `tck.run` takes, in characters. */
export const MAX_TCK_TEXT = 100_000;

const SCHEMA = 'https://json-schema.org/draft/2020-12/schema';

const INPUT: JsonSchema = {
  $schema: SCHEMA,
  type: 'object',
  required: ['text'],
  additionalProperties: false,
  properties: { text: { type: 'string', maxLength: MAX_TCK_TEXT } },
};

const OUTPUT: JsonSchema = {
  $schema: SCHEMA,
  description: 'A text, or a data object (the scenario says which).',
};

/** What a scenario does: its output (or it throws). */
type Scenario = (context: HandlerContext) => Promise<JsonValue>;

const answer =
  (value: JsonValue): Scenario =>
  () =>
    Promise.resolve(value);

/** The data part the file scenarios answer: a job's artifacts hold its output, not files. */
function fileArtifact(extra: Record<string, string>): JsonValue {
  return { file: { filename: 'output.txt', mediaType: 'text/plain', ...extra } };
}

async function pause(ms: number, context: HandlerContext): Promise<void> {
  try {
    await sleep(ms, undefined, { signal: context.signal });
  } catch {
    throw abortError(context.signal, `${TCK_VERB} (job ${context.jobId})`);
  }
}

/** The scenarios by `messageId` prefix (scenarios/core_operations.feature, streaming.feature). */
export const TCK_SCENARIOS: Readonly<Record<string, Scenario>> = {
  'tck-complete-task': answer('Hello from TCK'),
  'tck-artifact-text': answer('Generated text content'),
  'tck-artifact-file': answer(fileArtifact({ bytes: Buffer.from('tck').toString('base64') })),
  'tck-artifact-file-url': answer(fileArtifact({ url: 'https://example.com/output.txt' })),
  'tck-artifact-data': answer({ key: 'value', count: 42 }),
  'tck-message-response': answer('Direct message response'),
  'tck-input-required': async (context) => {
    const given = await context.requestInput('TCK: send a follow-up message naming this task to complete it');
    return `Hello from TCK (answered: ${typeof given === 'string' ? given : JSON.stringify(given)})`;
  },
  'tck-reject-task': () =>
    Promise.reject(new PlexusError('FORBIDDEN', 'rejected: the tck-reject-task scenario refuses its task')),
  'tck-stream-001': answer('Stream hello from TCK'),
  'tck-stream-002': answer('Stream completed'),
  'tck-stream-003': answer('Stream task lifecycle'),
  'tck-stream-ordering-001': answer('Ordered output'),
  'tck-stream-artifact-text': answer('Streamed text content'),
  'tck-stream-artifact-file': answer(fileArtifact({ bytes: Buffer.from('tck').toString('base64') })),
  'tck-stream-artifact-chunked': (context) => {
    context.progress({ chunk: 'chunk-1 ' });
    context.progress({ chunk: 'chunk-2', lastChunk: true });
    return Promise.resolve('chunk-1 chunk-2');
  },
  'test-resubscribe-message-id': async (context) => {
    context.progress({ state: 'working' });
    await pause(TCK_LONG_TASK_MS, context);
    return 'Long-running task completed';
  },
};

const PREFIXES = Object.keys(TCK_SCENARIOS).sort((a, b) => b.length - a.length);

/** The scenario prefix `messageId` selects (the longest that matches), if any. */
export function tckScenarioOf(messageId: string): string | undefined {
  return PREFIXES.find((prefix) => messageId.startsWith(prefix));
}

async function run(_input: JsonValue, context: HandlerContext): Promise<JsonValue> {
  const messageId = requestMessage(context.envelope)?.messageId;
  if (messageId === undefined) return 'Hello from TCK (no A2A message: the default scenario)';
  const prefix = tckScenarioOf(messageId);
  const scenario = prefix === undefined ? undefined : TCK_SCENARIOS[prefix];
  if (scenario === undefined) return `Unhandled messageId prefix: ${messageId}`;
  return scenario(context);
}

/** The TCK agent: `tck.run` {text} plays the TCK scenario its A2A message's `messageId` names. */
export function tckAgent(): AgentDefinition {
  const capability: AgentCapability = {
    verb: TCK_VERB,
    description:
      'The A2A TCK system under test: a text message plays the scenario its messageId prefix names (tck-complete-task, tck-input-required, tck-stream-001, …).',
    input: INPUT,
    output: OUTPUT,
  };
  return defineAgent({
    card: {
      id: TCK_AGENT_ID,
      name: 'A2A TCK system under test',
      version: '1.0.0',
      tier: 'L3',
      description:
        'The behaviours the A2A TCK expects of the agent it tests, keyed by messageId prefix; point the TCK at /agents/tck.',
      capabilities: [capability],
      protocols: ['esrp', 'emergence', 'jsonrpc'],
    },
    verbs: [
      {
        name: TCK_VERB,
        version: 1,
        status: 'stable',
        input: INPUT,
        output: OUTPUT,
        effects: {},
        capabilities: [`${TCK_AGENT_ID}:read`],
        category: 'query',
        deterministic: false,
        description: capability.description ?? '',
      },
    ],
    create: () => ({ [TCK_VERB]: run }),
  });
}
