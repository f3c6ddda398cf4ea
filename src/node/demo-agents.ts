/**
 * The demo agents `plexus start --demo` registers, so a newcomer can try every face at once
 * from curl or a WebSocket client:
 *
 * - `echo.echo` (agent `echo`): answers with its input;
 * - `text.summarize` (agent `text`): a deterministic extractive summary;
 * - `math.evaluate` (agent `math`): a safe arithmetic evaluator;
 * - `demo.slow` (agent `demo`): a job that runs for a few seconds reporting progress, for
 *   async mode, SSE and cancellation;
 * - agent `conformance`: the fixtures of the official MCP conformance suite
 *   (`demo/conformance-agent.ts`; not in {@link DEMO_VERBS}, they are MCP test fixtures);
 * - agent `tck`: the A2A TCK's system-under-test behaviours keyed by messageId prefix
 *   (`demo/tck-agent.ts`; not in {@link DEMO_VERBS} either, an A2A test fixture).
 *
 * Each agent's id is its verb's namespace, so an ESRP request (whose `target.service` is the
 * namespace) reaches it directly; and each reads ESRP request data (`params` and named
 * `inputs`) as well as a plain input (see `demo/esrp-input.ts`).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { JsonObject, JsonValue } from '../core/json.js';
import type { AgentCapability } from '../core/records/agent-card.js';
import type { ProjectionHints, VerbSpec } from '../core/records/verb-spec.js';
import { abortError, defineAgent, type AgentDefinition, type VerbHandler } from '../runtime/index.js';
import { evaluateExpression, MAX_EXPRESSION_LENGTH } from './demo/math-expression.js';
import { checkedInput, withEsrpInput } from './demo/esrp-input.js';
import { MAX_SUMMARY_SENTENCES, summarize } from './demo/summarize.js';
import { conformanceAgent } from './demo/conformance-agent.js';
import { tckAgent } from './demo/tck-agent.js';

/** The longest text `text.summarize` takes, in characters. */
export const MAX_SUMMARY_TEXT = 1_000_000;
/** The longest run of `demo.slow`, in seconds. */
export const MAX_SLOW_SECONDS = 60;
/** The most progress steps of `demo.slow`. */
export const MAX_SLOW_STEPS = 600;

const SCHEMA = 'https://json-schema.org/draft/2020-12/schema';

/** What `plexus start --demo` prints about one demo verb. */
export interface DemoVerbInfo {
  readonly verb: string;
  readonly agent: string;
  readonly summary: string;
  /** An example input. */
  readonly example: JsonValue;
}

/** The demo verbs, for the start banner and the docs. */
export const DEMO_VERBS: readonly DemoVerbInfo[] = [
  { verb: 'echo.echo', agent: 'echo', summary: 'answers with its input', example: { hello: 'world' } },
  {
    verb: 'text.summarize',
    agent: 'text',
    summary: 'extractive summary: the N most representative sentences',
    example: { text: 'Plexus is a mesh. A mesh links agents. Agents answer requests.', sentences: 1 },
  },
  {
    verb: 'math.evaluate',
    agent: 'math',
    summary: 'evaluates + - * / ^ ( ) with numbers',
    example: { expression: '2 * (3 + 4) ^ 2' },
  },
  {
    verb: 'demo.slow',
    agent: 'demo',
    summary: 'runs for `seconds` reporting progress; for async, SSE and cancel',
    example: { seconds: 5 },
  },
];

/**
 * The spec of a demo verb: a query that touches nothing (no declared effects: it reads no
 * resource and writes nothing; `demo.slow` only reports progress on its own job) and needs
 * the scope `<namespace>:read` (`math:read` for `math.evaluate`).
 */
function spec(
  name: string,
  capability: AgentCapability,
  description: string,
  projection?: ProjectionHints,
): VerbSpec {
  return {
    ...(projection === undefined ? {} : { projection }),
    name,
    version: 1,
    status: 'stable',
    input: capability.input,
    output: capability.output,
    effects: {},
    capabilities: [`${name.slice(0, name.indexOf('.'))}:read`],
    category: 'query',
    deterministic: true,
    description,
  };
}

/**
 * An agent with one verb. Its card's input schema also admits ESRP request data, which the
 * handler receives already turned into the plain input (see `plainInput`).
 */
function agent(
  id: string,
  name: string,
  description: string,
  plain: AgentCapability,
  handler: VerbHandler,
  projection?: ProjectionHints,
): AgentDefinition {
  const capability: AgentCapability = { ...plain, input: withEsrpInput(plain.input) };
  const run: VerbHandler = (input, context) => handler(checkedInput(input, plain.input), context);
  return defineAgent({
    card: {
      id,
      name,
      version: '1.0.0',
      tier: 'L3',
      description,
      capabilities: [capability],
      protocols: ['esrp', 'emergence', 'jsonrpc'],
    },
    verbs: [spec(capability.verb, capability, capability.description ?? description, projection)],
    create: () => ({ [capability.verb]: run }),
  });
}

/** The echo agent: `echo.echo` returns its input unchanged. */
export function echoAgent(): AgentDefinition {
  return agent(
    'echo',
    'Echo',
    'Answers every request with its own input.',
    {
      verb: 'echo.echo',
      description: 'Returns its input unchanged.',
      input: { $schema: SCHEMA, description: 'Any JSON value.' },
      output: { $schema: SCHEMA, description: 'The input, unchanged.' },
    },
    (input) => input,
  );
}

/** The summariser agent: `text.summarize` {text, sentences?} → {summary, sentences, indices, total}. */
export function summarizerAgent(): AgentDefinition {
  return agent(
    'text',
    'Extractive summariser',
    'Picks the sentences whose words are most frequent in the text; deterministic.',
    {
      verb: 'text.summarize',
      description: 'The N most representative sentences of a text, in their original order.',
      input: {
        $schema: SCHEMA,
        type: 'object',
        required: ['text'],
        additionalProperties: false,
        properties: {
          text: { type: 'string', minLength: 1, maxLength: MAX_SUMMARY_TEXT },
          sentences: { type: 'integer', minimum: 1, maximum: MAX_SUMMARY_SENTENCES, default: 3 },
        },
      },
      output: {
        $schema: SCHEMA,
        type: 'object',
        required: ['summary', 'sentences', 'indices', 'total'],
        additionalProperties: false,
        properties: {
          summary: { type: 'string' },
          sentences: { type: 'array', items: { type: 'string' } },
          indices: { type: 'array', items: { type: 'integer', minimum: 0 } },
          total: { type: 'integer', minimum: 0 },
        },
      },
    },
    (input) => {
      const { text, sentences } = input as { text: string; sentences?: number };
      return summarize(text, sentences ?? 3) as unknown as JsonObject;
    },
  );
}

/** The evaluator agent: `math.evaluate` {expression} → {expression, value}. */
export function calculatorAgent(): AgentDefinition {
  return agent(
    'math',
    'Arithmetic evaluator',
    'Evaluates arithmetic with + - * / ^, parentheses and unary minus; no code is ever run.',
    {
      verb: 'math.evaluate',
      description: 'Evaluates an arithmetic expression; errors name the position (1-based).',
      input: {
        $schema: SCHEMA,
        type: 'object',
        required: ['expression'],
        additionalProperties: false,
        properties: { expression: { type: 'string', minLength: 1, maxLength: MAX_EXPRESSION_LENGTH } },
      },
      output: {
        $schema: SCHEMA,
        type: 'object',
        required: ['expression', 'value'],
        additionalProperties: false,
        properties: { expression: { type: 'string' }, value: { type: 'number' } },
      },
    },
    (input) => {
      const { expression } = input as { expression: string };
      return { expression, value: evaluateExpression(expression) };
    },
    // the dashboard's form (docs/observability.md "Run a verb")
    { 'ui:form': { fields: ['expression'], submit: 'Evaluate' } },
  );
}

/** The slow agent: `demo.slow` {seconds?, steps?} runs, reporting progress each step, until done or cancelled. */
export function slowAgent(): AgentDefinition {
  return agent(
    'demo',
    'Slow job',
    'Runs for a few seconds, reporting progress at each step; stops at once when cancelled.',
    {
      verb: 'demo.slow',
      description:
        'Runs for `seconds` (default 5, at most 60) in `steps` steps (default one a second), reporting progress after each.',
      input: {
        $schema: SCHEMA,
        type: 'object',
        additionalProperties: false,
        properties: {
          seconds: { type: 'integer', minimum: 0, maximum: MAX_SLOW_SECONDS, default: 5 },
          steps: { type: 'integer', minimum: 1, maximum: MAX_SLOW_STEPS },
        },
      },
      output: {
        $schema: SCHEMA,
        type: 'object',
        required: ['seconds', 'steps', 'completed'],
        additionalProperties: false,
        properties: {
          seconds: { type: 'integer' },
          steps: { type: 'integer' },
          completed: { const: true },
        },
      },
    },
    async (input, context) => {
      const { seconds = 5, steps: asked } = input as { seconds?: number; steps?: number };
      const steps = asked ?? Math.max(seconds, 1);
      const stepMs = (seconds * 1000) / steps;
      for (let step = 1; step <= steps; step++) {
        try {
          await sleep(stepMs, undefined, { signal: context.signal });
        } catch {
          throw abortError(context.signal, `demo.slow (job ${context.jobId})`);
        }
        context.progress({ step, of: steps, percent: Math.floor((step * 100) / steps) });
      }
      return { seconds, steps, completed: true };
    },
    // the dashboard shows each progress event as it comes
    {
      'ui:form': { fields: ['seconds', 'steps'], submit: 'Start' },
      'ui:stream': { type: 'sse', events: ['progress'] },
    },
  );
}

export { DEMO_AGENT_IDS } from './demo-agent-ids.js';

/** Every demo agent, in a fixed order; or those whose id is in `only`. */
export function demoAgents(only?: readonly string[]): AgentDefinition[] {
  const all = [
    echoAgent(),
    summarizerAgent(),
    calculatorAgent(),
    slowAgent(),
    conformanceAgent(),
    tckAgent(),
  ];
  return only === undefined ? all : all.filter((a) => only.includes(a.card.id));
}
