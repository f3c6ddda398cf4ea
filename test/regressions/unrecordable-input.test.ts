// Issue 11 item 6: a WebSocket request whose `id` was a lone surrogate ran memory.store (its
// memory.stored event stayed in the log) and then failed to record the job (−32603, "retry").
// Now whatever the event log cannot record (lone surrogates in any string or key, nesting past
// 256, numbers that overflow a double) is refused at the face before any handler runs, and no
// effect event is ever in the log without its job's job.submitted.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlexusError } from '../../src/core/errors.js';
import type { JsonObject } from '../../src/core/json.js';
import { createNode, type Node } from '../../src/node/index.js';
import { defineAgent } from '../../src/runtime/index.js';
import { generateKeyPair, identityFromPublicKey, rpcDomain, signEnvelope } from '../../src/security/index.js';
import {
  emergenceText,
  esrpText,
  nestedArrays,
  openRpc,
  postText,
  type RpcReply,
  type RpcSocket,
} from './support/faces-client.js';
import { openEventLog } from '../../src/store/event-map.js';

let node: Node;
let dir: string;
let rpc: RpcSocket;
const peerKey = generateKeyPair();
const EFFECT = 'test.effect';

/** `effects.write`: writes an effect event straight to the log (as the primitives do), caused by its job. */
const effects = defineAgent({
  card: {
    id: 'effects',
    name: 'Effects',
    version: '1.0.0',
    tier: 'L3',
    capabilities: [
      { verb: 'effects.write', input: true, output: true },
      { verb: 'effects.bad_output', input: true, output: true },
    ],
  },
  create: () => ({
    'effects.write': async (_input, ctx) => {
      await openEventLog(node.log).append({ type: EFFECT, data: { job: ctx.jobId }, causation: ctx.jobId });
      return { written: true };
    },
    /** Writes its effect, then answers with what the log cannot record. */
    'effects.bad_output': async (_input, ctx) => {
      await openEventLog(node.log).append({ type: EFFECT, data: { job: ctx.jobId }, causation: ctx.jobId });
      return { text: 'a\ud800' };
    },
  }),
});

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'plexus-unrecordable-'));
  node = createNode({
    dataDir: dir,
    port: 0,
    dev: true,
    store: 'memory',
    agents: [effects],
    trustedPeers: [identityFromPublicKey(peerKey.publicKey).did],
  });
  await node.start();
  rpc = await openRpc(node.url);
});

afterAll(async () => {
  rpc.close();
  await node.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Effect events whose job has no job.submitted (for memory.stored: no recorded job answered with it). */
async function orphans(): Promise<string[]> {
  const events = await node.log.read({});
  const submitted = new Set(events.filter((e) => e.type === 'job.submitted').map((e) => e.causation));
  const storedBy = new Map<string, string | undefined>();
  for (const e of events) {
    const outputs = (e.data as JsonObject)['outputs'];
    if (
      e.type === 'job.completed' &&
      typeof outputs === 'object' &&
      outputs !== null &&
      !Array.isArray(outputs)
    ) {
      const id = outputs['id'];
      if (typeof id === 'string') storedBy.set(id, e.causation);
    }
  }
  const out: string[] = [];
  for (const e of events) {
    if (e.type === EFFECT && !submitted.has(e.causation)) out.push(`${e.type} #${e.seq}`);
    if (e.type === 'memory.stored') {
      const memoryId = (e.data as JsonObject)['id'];
      const job = typeof memoryId === 'string' ? storedBy.get(memoryId) : undefined;
      if (job === undefined || !submitted.has(job)) out.push(`${e.type} #${e.seq}`);
    }
  }
  return out;
}

function expectRefusal(reply: RpcReply): void {
  expect([-32600, -32602], JSON.stringify(reply).slice(0, 300)).toContain(reply.error?.code);
  expect(reply.error?.data).toMatchObject({ retryable: false });
}

describe('the report: a lone surrogate as a WebSocket id', () => {
  it('is refused with −32600 (id null) before memory.store runs; nothing is logged', async () => {
    const before = (await node.log.read({})).length;
    const reply = await rpc.ask(
      '{"jsonrpc":"2.0","method":"memory.store","params":{"content":"hello"},"id":"\\ud800"}',
    );
    expect(reply.error?.code).toBe(-32600);
    expect(reply.id).toBeNull();
    expect(reply.error?.data).toMatchObject({ retryable: false, details: { pointer: '/id' } });
    expect((await node.log.read({})).length).toBe(before);
    expect(await orphans()).toEqual([]);
  });

  it('a lone surrogate inside params is −32602 with the call id', async () => {
    const reply = await rpc.ask(
      '{"jsonrpc":"2.0","method":"memory.store","params":{"content":"a\\udc00"},"id":4}',
    );
    expect(reply.error?.code).toBe(-32602);
    expect(reply.id).toBe(4);
    expect(await node.log.read({ type: 'memory.stored' })).toEqual([]);
  });

  it('an in-process caller gets a refusal before the handler runs', async () => {
    const before = (await node.log.read({ type: EFFECT })).length;
    const base = { kind: 'request', from: 'me', to: 'effects', verb: 'effects.write' } as const;
    const cases = [
      { ...base, id: randomUUID(), data: JSON.parse(nestedArrays(300)) as JsonObject },
      { ...base, id: randomUUID(), data: {}, extensions: { _x_note: 'a\ud800' } },
    ];
    for (const envelope of cases) {
      const outcome = await node.runtime.invoke(envelope, { face: 'sdk' }).catch((error: unknown) => error);
      const error =
        outcome instanceof PlexusError
          ? outcome
          : PlexusError.fromData((outcome as { envelope: { data: never } }).envelope.data);
      expect(['INVALID_PARAMS', 'INVALID_REQUEST']).toContain(error.code);
      expect(error.retryable).toBe(false);
    }
    expect((await node.log.read({ type: EFFECT })).length).toBe(before);
    expect(await orphans()).toEqual([]);
  });
});

describe('a handler whose output the log cannot record', () => {
  it('fails its job, which is recorded with its effect (not a retryable "could not record")', async () => {
    const reply = await rpc.ask('{"jsonrpc":"2.0","method":"effects.bad_output","params":{},"id":"b"}');
    expect(reply.error?.code).toBe(-32603);
    expect(reply.error?.data).toMatchObject({ code: 'INTERNAL', retryable: false });
    expect(JSON.stringify(reply.error?.data)).toMatch(/lone surrogate/);
    const failed = await node.log.read({ type: 'job.failed' });
    expect(failed.length).toBeGreaterThan(0);
    expect(await orphans()).toEqual([]);
  });
});

// ── the property: random unrecordable values at every face, then no orphan effect ──

const LONE = fc.constantFrom('\\ud800', '\\udbff', '\\udc00', '\\udfff', '\\ud83d');
const ascii = fc.string({ maxLength: 6 });
/** A JSON string literal holding a lone surrogate somewhere. */
const loneString = fc
  .tuple(ascii, LONE, ascii)
  .map(([a, lone, b]) => `${JSON.stringify(a).slice(0, -1)}${lone}${JSON.stringify(b).slice(1)}`);
/** JSON text the event log cannot record. */
const poison = fc.oneof(
  loneString.map((text) => ({ kind: 'string', text })),
  loneString.map((key) => ({ kind: 'key', text: `{${key}:1}` })),
  fc.constantFrom('1e999', '-1e999', '1E400', '9'.repeat(400)).map((text) => ({ kind: 'number', text })),
  fc.integer({ min: 257, max: 1200 }).map((n) => ({ kind: 'deep', text: nestedArrays(n) })),
);
/** An object (as text) with the poison under one of its keys. */
const carrier = fc
  .tuple(fc.dictionary(fc.constantFrom('a', 'b', 'c'), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 2 }), poison)
  .map(([base, p]) => ({
    kind: p.kind,
    poison: p.text,
    text: `{"p":${p.text},"base":${JSON.stringify(base)}}`,
  }));

const FACES = [
  'esrp-params',
  'esrp-input',
  'emergence-data',
  'emergence-from',
  'ws-params',
  'ws-id',
  'ws-batch',
  'peer',
] as const;

async function throwAt(
  face: (typeof FACES)[number],
  c: { kind: string; poison: string; text: string },
): Promise<void> {
  const id = randomUUID();
  switch (face) {
    case 'esrp-params':
    case 'esrp-input': {
      const body =
        face === 'esrp-input'
          ? esrpText('effects', 'write', c.text, id)
          : esrpText('effects', 'write', '"{}"', id).replace('"params":null', `"params":${c.text}`);
      const a = await postText(`${node.url}/v1/execute`, body);
      expect(a.status, a.text.slice(0, 300)).toBe(400);
      expect(a.retryAfter).toBeNull();
      expect(a.body).toMatchObject({
        status: 'failed',
        error: { code: 'INVALID_INPUT_SCHEMA', retryable: false },
      });
      return;
    }
    case 'emergence-data':
    case 'emergence-from': {
      const body =
        face === 'emergence-from' && c.kind === 'string'
          ? emergenceText(id, 'effects', '{}', c.poison)
          : emergenceText(id, 'effects', c.text, '"r"');
      const a = await postText(`${node.url}/emergence`, body);
      expect(a.status, a.text.slice(0, 300)).toBe(400);
      expect(a.body).toMatchObject({ verb: 'ERROR', data: { code: 400 } });
      return;
    }
    case 'ws-params':
    case 'ws-id': {
      const text =
        face === 'ws-id' && c.kind === 'string'
          ? `{"jsonrpc":"2.0","method":"effects.write","params":{},"id":${c.poison}}`
          : `{"jsonrpc":"2.0","method":"effects.write","params":${c.text},"id":1}`;
      expectRefusal(await rpc.ask(text));
      return;
    }
    case 'ws-batch': {
      const good = '{"jsonrpc":"2.0","method":"effects.write","params":{"ok":1},"id":"good"}';
      const bad = `{"jsonrpc":"2.0","method":"effects.write","params":${c.text},"id":"bad"}`;
      const reply = (await rpc.ask(`[${good},${bad}]`)) as RpcReply | RpcReply[];
      if (c.kind === 'deep') {
        // The whole text is refused while decoding: one −32600, nothing runs.
        expectRefusal(reply as RpcReply);
        return;
      }
      expect(Array.isArray(reply)).toBe(true);
      const [first, second] = reply as RpcReply[];
      expect(first).toMatchObject({ id: 'good', result: { written: true } });
      expectRefusal(second as RpcReply);
      return;
    }
    case 'peer': {
      const d = {
        id,
        kind: 'request',
        from: 'peer',
        to: 'effects',
        verb: 'effects.write',
        data: { p: 'POISON' },
      };
      const signed = JSON.stringify(signEnvelope(d, { key: peerKey, domain: rpcDomain('effects.write') }));
      const a = await postText(`${node.url}/v1/peer/invoke`, signed.replace('"POISON"', c.poison));
      expect(a.status, a.text.slice(0, 300)).toBe(400);
      expect(a.body).toMatchObject({ error: { retryable: false } });
      return;
    }
  }
}

describe('unrecordable input at every face', () => {
  it('is refused with the face’s bad-input error, and the log never holds an orphan effect', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...FACES), carrier, async (face, c) => {
        await throwAt(face, c);
      }),
      { seed: 1105, numRuns: 120 },
    );
    // The good halves of the batches ran: the check below is not vacuous.
    expect((await node.log.read({ type: EFFECT })).length).toBeGreaterThan(0);
    expect(await orphans()).toEqual([]);
  }, 120_000);
});
