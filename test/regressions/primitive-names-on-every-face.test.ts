// Issue 11, item 13: every Hyperspace primitive method works over ESRP, Emergence, WebSocket
// JSON-RPC, `plexus call` and the SDK's remote client, under its seed name (`state.createSession`)
// and its verb name (`state.create_session`); the log records the canonical verb.
// On the original main ESRP / `plexus call` / the SDK answered `/inputs: unknown property "inputs"`
// for every primitive, and the camelCase names were refused by `plexus call` and Emergence.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isJsonObject, type JsonValue } from '../../src/core/json.js';
import { createNode, type Node } from '../../src/node/index.js';
import { HYPERSPACE_PRIMITIVES } from '../../src/node/primitive-host.js';
import { remoteClient } from '../../src/sdk/index.js';
import { runCli } from '../cli/run-cli.js';

/** What one call came back with, face-independently. */
type Outcome =
  { readonly ok: true; readonly value: JsonValue } | { readonly ok: false; readonly why: string };

/** Resources a method's input needs; each call may ask for a fresh one. */
interface Fixtures {
  session(): Promise<string>;
  memory(): Promise<string>;
  channel(): Promise<string>;
  readonly toolId: string;
  readonly trajectoryId: string;
  readonly bulletId: string;
  readonly memoryId: string;
  readonly channelId: string;
}

interface MethodCase {
  /** The seed's name (`state.createSession`). */
  readonly seed: string;
  /** The verb (`state.create_session`). */
  readonly verb: string;
  /** A valid input (fresh resources for methods that use one up). */
  readonly input: (f: Fixtures) => Promise<JsonValue> | JsonValue;
}

const TRAJECTORY = {
  taskType: 'web-research',
  input: { query: 'batteries' },
  output: { summary: 'short' },
  steps: [{ action: 'search', tool: 'web-search', duration: 310 }],
  reward: 0.9,
};

/** One representative valid input per primitive method (all 44). */
const CASES: readonly MethodCase[] = [
  { seed: 'state.createSession', verb: 'state.create_session', input: () => ({ agentName: 'probe' }) },
  {
    seed: 'state.getSession',
    verb: 'state.get_session',
    input: async (f) => ({ sessionId: await f.session() }),
  },
  {
    seed: 'state.setState',
    verb: 'state.set_state',
    input: async (f) => ({ sessionId: await f.session(), key: 'k', value: { n: 1 } }),
  },
  {
    seed: 'state.getState',
    verb: 'state.get_state',
    input: async (f) => ({ sessionId: await f.session(), key: 'k' }),
  },
  {
    seed: 'state.endSession',
    verb: 'state.end_session',
    input: async (f) => ({ sessionId: await f.session() }),
  },
  {
    seed: 'state.recordEpisode',
    verb: 'state.record_episode',
    input: async (f) => ({ sessionId: await f.session(), outcome: 'done', reward: 0.5 }),
  },
  { seed: 'guard.validate', verb: 'guard.validate', input: () => ({ data: 3, schema: { type: 'integer' } }) },
  { seed: 'guard.checkSafety', verb: 'guard.check_safety', input: () => ({ content: 'a friendly note' }) },
  {
    seed: 'guard.checkBudget',
    verb: 'guard.check_budget',
    input: async (f) => ({ sessionId: await f.session(), estimatedCost: 0.01 }),
  },
  {
    seed: 'guard.consumeBudget',
    verb: 'guard.consume_budget',
    input: async (f) => ({ sessionId: await f.session(), amount: 0.01, description: 'probe' }),
  },
  {
    seed: 'guard.checkRateLimit',
    verb: 'guard.check_rate_limit',
    input: () => ({ key: `probe-${randomUUID()}`, limit: 10, window: 60 }),
  },
  {
    seed: 'guard.getBudgetStatus',
    verb: 'guard.get_budget_status',
    input: async (f) => ({ sessionId: await f.session() }),
  },
  {
    seed: 'tool.register',
    verb: 'tool.register',
    input: () => ({
      name: `probe-${randomUUID().slice(0, 8)}`,
      description: 'a probe tool',
      schema: { input: { type: 'object' }, output: {} },
      capabilities: ['probe'],
      verb: 'learning.get_stats',
    }),
  },
  { seed: 'tool.discover', verb: 'tool.discover', input: () => ({ query: 'stats' }) },
  {
    seed: 'tool.invoke',
    verb: 'tool.invoke',
    input: (f) => ({ toolId: f.toolId, params: { playbookId: 'probe-book' } }),
  },
  { seed: 'tool.getAnalytics', verb: 'tool.get_analytics', input: (f) => ({ toolId: f.toolId }) },
  { seed: 'tool.listRegistered', verb: 'tool.list_registered', input: () => ({}) },
  { seed: 'memory.store', verb: 'memory.store', input: () => ({ content: 'backoff with jitter' }) },
  { seed: 'memory.search', verb: 'memory.search', input: () => ({ query: 'jitter', limit: 2 }) },
  { seed: 'memory.get', verb: 'memory.get', input: (f) => ({ id: f.memoryId }) },
  { seed: 'memory.list', verb: 'memory.list', input: async (f) => ({ sessionId: await f.session() }) },
  { seed: 'memory.delete', verb: 'memory.delete', input: async (f) => ({ id: await f.memory() }) },
  { seed: 'memory.archive', verb: 'memory.archive', input: async (f) => ({ id: await f.memory() }) },
  {
    seed: 'recursive.analyze',
    verb: 'recursive.analyze',
    input: async (f) => ({ sessionId: await f.session(), currentStep: 'b', callStack: ['a', 'b', 'a', 'b'] }),
  },
  {
    seed: 'recursive.track',
    verb: 'recursive.track',
    input: async (f) => ({ sessionId: await f.session(), step: 'plan', depth: 1 }),
  },
  {
    seed: 'recursive.getTrace',
    verb: 'recursive.get_trace',
    input: async (f) => ({ sessionId: await f.session() }),
  },
  {
    seed: 'recursive.setMaxDepth',
    verb: 'recursive.set_max_depth',
    input: async (f) => ({ sessionId: await f.session(), maxDepth: 20 }),
  },
  {
    seed: 'learning.getPlaybook',
    verb: 'learning.get_playbook',
    input: () => ({ playbookId: 'probe-book' }),
  },
  {
    seed: 'learning.reflect',
    verb: 'learning.reflect',
    input: () => ({
      playbookId: 'probe-book',
      execution: { input: { q: 'x' }, output: { a: 'y' }, steps: [], outcome: 'success', reward: 1 },
    }),
  },
  { seed: 'learning.curate', verb: 'learning.curate', input: () => ({ playbookId: 'probe-book' }) },
  {
    seed: 'learning.addBullet',
    verb: 'learning.add_bullet',
    input: () => ({ playbookId: 'probe-book', section: 'str', content: 'prefer primary sources' }),
  },
  {
    seed: 'learning.feedback',
    verb: 'learning.feedback',
    input: (f) => ({ playbookId: 'probe-book', bulletId: f.bulletId, helpful: true }),
  },
  { seed: 'learning.getStats', verb: 'learning.get_stats', input: () => ({ playbookId: 'probe-book' }) },
  { seed: 'improving.recordTrajectory', verb: 'improving.record_trajectory', input: () => TRAJECTORY },
  {
    seed: 'improving.getExemplars',
    verb: 'improving.get_exemplars',
    input: () => ({ taskType: 'web-research', limit: 3 }),
  },
  { seed: 'improving.curate', verb: 'improving.curate', input: () => ({ taskType: 'web-research' }) },
  { seed: 'improving.augment', verb: 'improving.augment', input: (f) => ({ trajectoryId: f.trajectoryId }) },
  {
    seed: 'improving.assessDifficulty',
    verb: 'improving.assess_difficulty',
    input: () => ({ taskType: 'web-research', input: { query: 'batteries' } }),
  },
  { seed: 'improving.getLibraryStats', verb: 'improving.get_library_stats', input: () => ({}) },
  {
    seed: 'micropayments.challenge',
    verb: 'micropayments.challenge',
    input: () => ({ pricePoints: 1, priceUsdc: 0.01, payeeAddress: `0x${'ab'.repeat(20)}` }),
  },
  {
    seed: 'micropayments.channel.open',
    verb: 'micropayments.channel.open',
    input: () => ({ payee: 'probe-payee', budget: 10, currency: 'points' }),
  },
  {
    seed: 'micropayments.channel.pay',
    verb: 'micropayments.channel.pay',
    input: (f) => ({ channelId: f.channelId, amount: 0.01 }),
  },
  {
    // a credential for a challenge this node never issued: answered (accepted: false) by the handler
    seed: 'micropayments.verify',
    verb: 'micropayments.verify',
    input: () => ({
      credential: {
        challengeId: 'no-such-challenge',
        payer: `0x${'12'.repeat(20)}`,
        payee: `0x${'ab'.repeat(20)}`,
        amount: 0.01,
        currency: 'USDC',
        nonce: `0x${'00'.repeat(32)}`,
        expiresAt: 4_000_000_000_000,
        chainId: 8453,
        signature: `0x${'11'.repeat(65)}`,
      },
    }),
  },
  {
    seed: 'micropayments.channel.close',
    verb: 'micropayments.channel.close',
    input: async (f) => ({ channelId: await f.channel() }),
  },
];

const dir = mkdtempSync(join(tmpdir(), 'plexus-names-'));
let node: Node;
let ws: WebSocket;
let fixtures: Fixtures;
const waiting = new Map<string, (answer: Answer) => void>();

/** The members of a parsed JSON answer, as the tests read them. */
interface Answer {
  readonly status?: string;
  readonly verb?: string;
  readonly outputs?: readonly { readonly data: string }[];
  readonly error?: JsonValue;
  readonly data?: { readonly result?: JsonValue };
  readonly result?: JsonValue;
}

/** `value` when it is a string, else a test failure naming `what`. */
function text(value: JsonValue | undefined, what: string): string {
  if (typeof value !== 'string') throw new Error(`${what} is not a string: ${JSON.stringify(value)}`);
  return value;
}

/** The result of an ESRP answer: its `result` output's JSON. */
function esrpResult(body: Answer): JsonValue {
  return JSON.parse(body.outputs?.[0]?.data ?? 'null') as JsonValue;
}

const FACES = {
  async esrp(name: string, input: JsonValue): Promise<Outcome> {
    const dot = name.lastIndexOf('.');
    const response = await fetch(`${node.url}/v1/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        esrp_version: '1.0',
        request_id: randomUUID(),
        timestamp: new Date().toISOString(),
        caller: { system: 'curl' },
        target: { service: name.slice(0, dot), operation: name.slice(dot + 1) },
        inputs: [
          { name: 'input', content_type: 'application/json', data: JSON.stringify(input), encoding: 'utf-8' },
        ],
      }),
    });
    const body = (await response.json()) as Answer;
    if (body.status === 'succeeded') return { ok: true, value: esrpResult(body) };
    return { ok: false, why: `${response.status} ${JSON.stringify(body.error)}` };
  },
  async emergence(name: string, input: JsonValue): Promise<Outcome> {
    const response = await fetch(`${node.url}/emergence`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        id: randomUUID(),
        from: 'emergence-probe',
        to: name.slice(0, name.indexOf('.')),
        verb: 'HELP',
        data: { verb: name, input },
      }),
    });
    const body = (await response.json()) as Answer;
    if (body.verb === 'DONE') return { ok: true, value: body.data?.result ?? null };
    return { ok: false, why: `${response.status} ${JSON.stringify(body.data)}` };
  },
  async websocket(name: string, input: JsonValue): Promise<Outcome> {
    const id = randomUUID();
    const answer = await new Promise<Answer>((resolve) => {
      waiting.set(id, resolve);
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, method: name, params: input }));
    });
    if (answer.result !== undefined) return { ok: true, value: answer.result };
    return { ok: false, why: JSON.stringify(answer.error) };
  },
  async cli(name: string, input: JsonValue): Promise<Outcome> {
    const run = await runCli(['call', name, '--data', JSON.stringify(input), '--node', node.url, '--json']);
    if (run.code !== 0) return { ok: false, why: run.err.trim() };
    return { ok: true, value: esrpResult(JSON.parse(run.out) as Answer) };
  },
  async sdk(name: string, input: JsonValue): Promise<Outcome> {
    try {
      return { ok: true, value: await remoteClient(node.url).invoke(name, input) };
    } catch (error) {
      return { ok: false, why: (error as Error).message };
    }
  },
} as const;

/** A setup call, made over the WebSocket face so the resources belong to the callers of the test. */
async function direct(verb: string, data: JsonValue): Promise<Record<string, JsonValue>> {
  const outcome = await FACES.websocket(verb, data);
  if (!outcome.ok || !isJsonObject(outcome.value))
    throw new Error(`setup ${verb} failed: ${JSON.stringify(outcome)}`);
  return outcome.value;
}

beforeAll(async () => {
  node = createNode({ dataDir: dir, port: 0, dev: true, store: 'memory' });
  await node.start();
  ws = new WebSocket(`${node.url.replace(/^http/, 'ws')}/rpc`);
  ws.on('message', (data: Buffer) => {
    const answer = JSON.parse(data.toString('utf8')) as Answer & { id?: unknown };
    if (typeof answer.id === 'string') waiting.get(answer.id)?.(answer);
  });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const session = async (): Promise<string> =>
    text((await direct('state.create_session', { budget: 1000 }))['sessionId'], 'sessionId');
  const memory = async (): Promise<string> =>
    text((await direct('memory.store', { content: 'fresh memory' }))['id'], 'memory id');
  const channel = async (): Promise<string> =>
    text(
      (await direct('micropayments.channel.open', { payee: 'p', budget: 1000, currency: 'points' }))[
        'channelId'
      ],
      'channelId',
    );
  const tool = await direct('tool.register', {
    name: 'stats-tool',
    description: 'playbook stats',
    schema: { input: { type: 'object' }, output: {} },
    capabilities: ['stats'],
    verb: 'learning.get_stats',
  });
  const trajectory = await direct('improving.record_trajectory', TRAJECTORY);
  const bullet = await direct('learning.add_bullet', {
    playbookId: 'probe-book',
    section: 'str',
    content: 'cite sources',
  });
  fixtures = {
    session,
    memory,
    channel,
    memoryId: await memory(),
    channelId: await channel(),
    toolId: text(tool['toolId'] ?? tool['id'], 'toolId'),
    trajectoryId: text(trajectory['trajectoryId'], 'trajectoryId'),
    bulletId: text(bullet['bulletId'] ?? (bullet['bullet'] as Record<string, JsonValue>)['id'], 'bulletId'),
  };
}, 60_000);

afterAll(async () => {
  ws.terminate();
  await node.stop({ drainMs: 0 });
  rmSync(dir, { recursive: true, force: true });
});

describe('every primitive method on every face under both names', () => {
  it('covers all eight primitives and every method they host', () => {
    const hosted = node.runtime.agents.registry
      .list()
      .filter((card) => (HYPERSPACE_PRIMITIVES as readonly string[]).includes(card.id))
      .flatMap((card) => card.capabilities.map((c) => c.verb))
      .sort();
    expect(hosted).toEqual(CASES.map((c) => c.verb).sort());
    expect(new Set(hosted.map((v) => v.split('.')[0])).size).toBe(8);
  });

  for (const [face, call] of Object.entries(FACES)) {
    for (const c of CASES) {
      for (const name of new Set([c.seed, c.verb])) {
        it(`${face}: ${name}`, async () => {
          const outcome = await call(name, await c.input(fixtures));
          expect(outcome.ok ? 'ok' : outcome.why).toBe('ok');
        });
      }
    }
  }

  it('records the canonical verb of every call in the log, never a seed name', async () => {
    const submitted = await node.log.read({ type: 'job.submitted' });
    const verbs = submitted.map((e) => (e.data as { verb: string }).verb);
    const seedNames = new Set(CASES.filter((c) => c.seed !== c.verb).map((c) => c.seed));
    expect(verbs.filter((v) => seedNames.has(v))).toEqual([]);
    // (ESRP calls with the same input share a job: the payload hash is their idempotency key)
    for (const c of CASES) expect(verbs, c.verb).toContain(c.verb);
  });

  it('still refuses a name that is neither a verb nor an alias, on every face', async () => {
    for (const [face, call] of Object.entries(FACES)) {
      const outcome = await call('state.createSesion', {});
      expect(outcome.ok, face).toBe(false);
      const bad = await call('state.Create-Session', {});
      expect(bad.ok, face).toBe(false);
    }
  });
});
