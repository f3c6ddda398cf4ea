import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRpcSocket } from '../support/e2e-fixture.js';
import { built, cleanup, exitOf, ROOT, startNodeProcess, type NodeProcess } from './harness.js';
import { spawnSync } from 'node:child_process';

// Every JSON-RPC request of seed 003 (the fixture), sent in order to a running node over
// WebSocket: each answer has the seed's field names and JSON types (values depend on state).

interface Pair {
  readonly request: { method: string; params: Record<string, unknown>; id: number };
  readonly response: { result?: unknown; error?: { code: number; data?: unknown } };
}

const FIXTURE = join(
  ROOT,
  'test',
  'fixtures',
  'hyperspace-seed-examples',
  'hyperspace-seed-jsonrpc-examples.json',
);
const pairs = (JSON.parse(readFileSync(FIXTURE, 'utf8')) as { pairs: Pair[] }).pairs;

/** A JSON-RPC client over one WebSocket, one call at a time. */
interface Rpc {
  call(
    method: string,
    params: unknown,
  ): Promise<{ result?: unknown; error?: { code: number; data?: unknown } }>;
  close(): void;
}

async function rpcClient(url: string): Promise<Rpc> {
  const ws = await openRpcSocket(url);
  let next = 1000;
  const waiting = new Map<number, (answer: never) => void>();
  ws.on('message', (data: Buffer) => {
    const answer = JSON.parse(data.toString('utf8')) as { id?: number };
    if (typeof answer.id === 'number') waiting.get(answer.id)?.(answer as never);
  });
  return {
    call(method, params) {
      const id = next++;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          reject(new Error(`no answer to ${method} within 15 s`));
        }, 15_000);
        waiting.set(id, (answer) => {
          clearTimeout(timer);
          waiting.delete(id);
          resolve(answer);
        });
        ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
      });
    },
    close() {
      ws.terminate();
    },
  };
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/**
 * Where the answer's shape is the caller's own payload, not the protocol's: a tool's output
 * (the demo tool echoes), a tool's own schema, and lists whose contents depend on earlier state.
 */
const OPAQUE = new Set([
  'tool.invoke /result',
  'tool.discover /tools/0/schema',
  'learning.reflect /prunedBullets',
]);

/** Every place where `actual` lacks a field of `seed` or has another JSON type there. */
function shapeProblems(seed: unknown, actual: unknown, at = '', method = ''): string[] {
  if (OPAQUE.has(`${method} ${at}`)) return [];
  if (jsonType(seed) !== jsonType(actual)) {
    return [`${at || '/'}: seed has ${jsonType(seed)}, answer has ${jsonType(actual)}`];
  }
  if (Array.isArray(seed) && Array.isArray(actual)) {
    if (seed.length === 0) return [];
    if (actual.length === 0) return [`${at}: the answer's list is empty, so its items cannot be checked`];
    return shapeProblems(seed[0], actual[0], `${at}/0`, method);
  }
  if (jsonType(seed) === 'object') {
    const s = seed as Record<string, unknown>;
    const a = actual as Record<string, unknown>;
    return Object.keys(s).flatMap((k) =>
      k in a ? shapeProblems(s[k], a[k], `${at}/${k}`, method) : [`${at}/${k}: missing in the answer`],
    );
  }
  return [];
}

let node: NodeProcess;
let rpc: Rpc;

beforeAll(async () => {
  expect(built(), 'run `npm run build` first').toBe(true);
  node = await startNodeProcess();
  rpc = await rpcClient(node.url);
});

afterAll(async () => {
  rpc.close();
  await cleanup();
});

describe('the shape checker', () => {
  it('finds a missing field, a wrong type and an empty list', () => {
    expect(shapeProblems({ a: 1, b: [{ c: 's' }] }, { a: 1, b: [{ c: 's' }] })).toEqual([]);
    expect(shapeProblems({ a: 1 }, {})).toEqual(['/a: missing in the answer']);
    expect(shapeProblems({ a: 1 }, { a: '1' })).toEqual(['/a: seed has number, answer has string']);
    expect(shapeProblems({ b: [1] }, { b: [] })).toHaveLength(1);
  });
});

describe('the seed 003 JSON-RPC examples over WebSocket', () => {
  it('answers every example with the seed field names and types', async () => {
    // Values the seed invents (session and tool ids) are replaced by the node's own.
    const ids = new Map<string, string>();
    const swap = (value: unknown): unknown => {
      if (typeof value === 'string') return ids.get(value) ?? value;
      if (Array.isArray(value)) return value.map(swap);
      if (typeof value === 'object' && value !== null) {
        return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, swap(v)]));
      }
      return value;
    };
    const ok = async (method: string, params: unknown): Promise<Record<string, unknown>> => {
      const answer = await rpc.call(method, params);
      expect(answer.error, `${method}: ${JSON.stringify(answer.error)}`).toBeUndefined();
      return answer.result as Record<string, unknown>;
    };

    // A tool the discover examples find (backed by the demo echo verb) and a memory the
    // search example finds.
    const tool = await ok('tool.register', {
      name: 'web-search',
      description: 'Full-text web search with snippet extraction',
      schema: {
        input: { type: 'object', properties: { query: { type: 'string' } } },
        output: { type: 'object', properties: { query: { type: 'string' } } },
      },
      capabilities: ['search', 'scrape'],
      verb: 'echo.echo',
      reputation: 0.95,
      geo: 'us-east',
    });
    const toolId = (tool['toolId'] ?? tool['id']) as string;
    expect(typeof toolId).toBe('string');
    for (const p of pairs) {
      for (const t of (p.response.result as { tools?: { id: string }[] } | undefined)?.tools ?? []) {
        ids.set(t.id, toolId);
      }
    }
    await ok('memory.store', {
      content: 'error handling patterns for rate-limited APIs: exponential backoff with jitter',
      tier: 'working',
      metadata: { source: 'e2e', tags: ['retry'] },
    });

    const problems: string[] = [];
    for (const pair of pairs) {
      const { method } = pair.request;
      const params = swap(pair.request.params) as Record<string, unknown>;
      const answer = await rpc.call(method, params);
      if (pair.response.error !== undefined) {
        expect(answer.error?.code, method).toBe(pair.response.error.code);
        problems.push(
          ...shapeProblems(pair.response.error.data, answer.error?.data).map((p) => `${method} error ${p}`),
        );
        continue;
      }
      if (answer.error !== undefined) {
        problems.push(`${method} (id ${pair.request.id}): error ${JSON.stringify(answer.error)}`);
        continue;
      }
      problems.push(
        ...shapeProblems(pair.response.result, answer.result, '', method).map((p) => `${method} ${p}`),
      );
      if (method === 'state.createSession') {
        const seedId = (pair.response.result as { sessionId: string }).sessionId;
        const sessionId = (answer.result as { sessionId: string }).sessionId;
        ids.set(seedId, sessionId);
        // By the seed's budget examples this session spends 0.88 of its 1.00 while it runs.
        if (seedId === 'sess-a8c3f210') await ok('guard.consumeBudget', { sessionId, amount: 0.88 });
      }
    }
    expect(problems).toEqual([]);
  });

  it('answers bad params with −32602 naming the field', async () => {
    const answer = await rpc.call('state.endSession', { sessionId: 42 });
    expect(answer.error?.code).toBe(-32602);
    expect(JSON.stringify(answer.error)).toContain('sessionId');
    const missing = await rpc.call('guard.checkBudget', { estimatedCost: 0.1 });
    expect(missing.error?.code).toBe(-32602);
    expect(JSON.stringify(missing.error)).toContain('sessionId');
  });

  it('answers an unknown session with −32001', async () => {
    const answer = await rpc.call('state.endSession', { sessionId: 'sess-does-not-exist' });
    expect(answer.error?.code).toBe(-32001);
  });

  it('rebuilds every primitive from the log: plexus replay --verify passes after a clean stop', async () => {
    node.child.kill('SIGTERM');
    expect(await exitOf(node)).toBe(0);
    const replay = spawnSync(
      process.execPath,
      [join(ROOT, 'bin', 'plexus.js'), 'replay', '--verify', '--data', node.dataDir],
      {
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(replay.stderr).toBe('');
    expect(replay.status).toBe(0);
    for (const name of [
      'state.sessions',
      'guard.budgets',
      'tool.registry',
      'memory.memories',
      'primitives.learning',
      'primitives.improving',
    ]) {
      expect(replay.stdout).toMatch(new RegExp(`rebuilt ${name}: [1-9]`));
    }
  });
});
