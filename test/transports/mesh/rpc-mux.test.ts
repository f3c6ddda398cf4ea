/**
 * `/plexus/rpc/1.1.0` (issue 15 "Performance"; MESH-39…MESH-42): many calls on one long-lived
 * stream. Against a real node (createNode, the mesh face on 127.0.0.1) from a harness libp2p
 * peer with its own key: many concurrent calls share one stream; cancelling one leaves the others
 * running; a stream killed mid-call cancels its far jobs and fails its calls retryable; an
 * oversize frame refuses only its own stream; forged, replayed and malformed call frames are
 * refused by their id while the stream's other calls go on; the in-flight bounds refuse at once
 * (`RATE_LIMITED`), never queue; a peer without 1.1.0 is called on 1.0.0; a stream idle for
 * the idle timeout is closed by the callee, one with a call in flight never (MESH-49).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Envelope } from '../../../src/core/envelope.js';
import { PlexusError, type ErrorData } from '../../../src/core/errors.js';
import type { JsonValue } from '../../../src/core/json.js';
import { createNode, defaultFaces, type Node } from '../../../src/node/index.js';
import type { NodeInit } from '../../../src/node/node-init.js';
import { rpcDomain, signEnvelope } from '../../../src/security/index.js';
import { meshFace } from '../../../src/transports/mesh/mesh-face.js';
import { encodeFrame, frameReader } from '../../../src/transports/mesh/rpc-frames.js';
import { RPC_MUX_PROTOCOL, type MuxFrame } from '../../../src/transports/mesh/rpc-mux-frames.js';
import { chunkBytes } from '../../../src/transports/mesh/rpc-server.js';
import type { MeshRpcInit } from '../../../src/transports/mesh/rpc-service.js';
import {
  meshRpcClient,
  type MeshRpcClient,
  type MeshRpcClientInit,
  type RpcClientStream,
} from '../../../src/transports/mesh/rpc-transport.js';
import { agent, request } from '../../runtime/helpers.js';
import { wasNeverSent } from '../../../src/runtime/routing/index.js';
import { eventually, until } from '../../support/until.js';
import { cleanups, harness, meshAddress, meshStatus, runCleanups, type Harness } from './rpc-helpers.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

afterEach(runCleanups);

const FAR_AGENTS = [
  agent('worker', {
    'demo.work': (input) => ({ far: input }),
    'demo.hang': (_input, ctx) =>
      new Promise((_resolve, reject) => {
        ctx.signal.addEventListener('abort', () => {
          reject(new PlexusError('CANCELLED', 'stopped'));
        });
      }),
  }),
];

/** A dev node with the mesh on, its rpc options set. */
async function farNode(rpc: MeshRpcInit = {}): Promise<Node> {
  const dataDir = mkdtempSync(join(tmpdir(), 'plexus-mesh-mux-'));
  const options: NodeInit = {
    dataDir,
    port: 0,
    dev: true,
    primitives: false,
    demo: false,
    agents: FAR_AGENTS,
  };
  const node = createNode({
    ...options,
    faces: [...defaultFaces(options), meshFace({ heartbeatMs: 300 }, rpc)],
  });
  await node.start();
  cleanups.push(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });
  cleanups.push(() => node.stop({ drainMs: 0 }));
  return node;
}

async function pair(rpc: MeshRpcInit = {}) {
  const far = await farNode(rpc);
  const farPeer = (await meshStatus(far)).peerId;
  const near = await harness(await meshAddress(far));
  return { far, farPeer, near };
}

/** A client of the harness peer with its own options (no retries unless given). */
async function clientOf(near: Harness, init: Partial<MeshRpcClientInit> = {}): Promise<MeshRpcClient> {
  const { peerIdFromString } = await import('@libp2p/peer-id');
  const client = meshRpcClient({
    key: near.key,
    dial: () => (id, protocol, signal) => near.peer.dialProtocol(peerIdFromString(id), protocol, { signal }),
    maxFrameBytes: 1024 * 1024,
    retry: { delaysMs: [] },
    ...init,
  });
  cleanups.push(() => {
    client.close();
  });
  return client;
}

/** A raw `/plexus/rpc/1.1.0` stream: frames sent as given, every received frame kept. */
interface Wire {
  readonly frames: MuxFrame[];
  readonly ended: { value: boolean };
  send(...frames: (MuxFrame | Uint8Array)[]): void;
  /** The frame ending call `id` (answer or refusal), waited for. */
  outcome(id: number | undefined): Promise<MuxFrame>;
  readonly stream: RpcClientStream;
}

async function wire(near: Harness, farPeer: string): Promise<Wire> {
  const stream = await near.openMux(farPeer);
  const frames: MuxFrame[] = [];
  const ended = { value: false };
  void (async () => {
    const reader = frameReader(1024 * 1024);
    try {
      for await (const chunk of stream) frames.push(...(reader.push(chunkBytes(chunk)) as MuxFrame[]));
    } catch {
      // reset: the test looks at `ended`
    }
    ended.value = true;
  })();
  return {
    frames,
    ended,
    stream,
    send(...items) {
      for (const item of items) stream.send(item instanceof Uint8Array ? item : encodeFrame(item));
    },
    outcome: (id) =>
      eventually(`the answer of call ${String(id)}`, () =>
        Promise.resolve(
          frames.find((f) => (f.t === 'answer' || f.t === 'refused') && (f as { id?: number }).id === id),
        ),
      ),
  };
}

function signedCall(near: Harness, id: number, envelope: Envelope): MuxFrame {
  const signed = signEnvelope(envelope as unknown as JsonValue, {
    key: near.key,
    domain: rpcDomain(envelope.verb),
  });
  return { t: 'call', id, signed: signed as unknown as JsonValue };
}

function refusalOf(frame: MuxFrame): ErrorData {
  if (frame.t !== 'refused') throw new Error(`expected a refused frame, got ${JSON.stringify(frame)}`);
  return frame.error;
}

async function working(far: Node, count: number): Promise<string[]> {
  return eventually(`${String(count)} far demo.hang jobs working`, async () => {
    const jobs = (await far.runtime.jobs.list({})).jobs.filter(
      (j) => j.verb === 'demo.hang' && j.state === 'WORKING',
    );
    return jobs.length >= count ? jobs.map((j) => j.id) : undefined;
  });
}

async function workingCount(far: Node): Promise<number> {
  return (await far.runtime.jobs.list({})).jobs.filter((j) => j.verb === 'demo.hang' && j.state === 'WORKING')
    .length;
}

async function stateOf(far: Node, id: string): Promise<string> {
  return (await far.runtime.jobs.get(id)).state;
}

const codeOf = (e: unknown): string =>
  e instanceof PlexusError ? e.code : `not a PlexusError: ${String(e)}`;

describe('mesh rpc 1.1.0 (many calls per stream)', () => {
  it('carries many concurrent calls on one stream, each answered with its own data', async () => {
    const { farPeer, near } = await pair();
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        near.client.call(farPeer, request('demo.work', i, 'worker'), {
          signal: new AbortController().signal,
        }),
      ),
    );
    expect(answers.map((a) => (a.data as { far: number }).far)).toEqual(
      Array.from({ length: 40 }, (_, i) => i),
    );
    expect(near.client.streams(farPeer)).toBe(1);
  });

  it('cancels one call of many without disturbing the others', async () => {
    const { far, farPeer, near } = await pair();
    const first = new AbortController();
    const second = new AbortController();
    const hangFirst = near.client
      .call(farPeer, request('demo.hang', 1, 'worker'), { signal: first.signal })
      .catch(codeOf);
    const hangSecond = near.client
      .call(farPeer, request('demo.hang', 2, 'worker'), { signal: second.signal })
      .catch(codeOf);
    const ids = await working(far, 2);
    first.abort(new PlexusError('CANCELLED', 'stop one'));
    expect(await hangFirst).toBe('CANCELLED');
    const states = async (): Promise<string[]> =>
      (await Promise.all(ids.map((id) => stateOf(far, id)))).sort();
    await until(async () => (await states()).includes('CANCELED'), { what: 'one far job cancelled' });
    // the other calls on the same stream go on: new calls answer, the second hang still works
    const more = await Promise.all(
      [1, 2, 3].map((i) =>
        near.client.call(farPeer, request('demo.work', i, 'worker'), {
          signal: new AbortController().signal,
        }),
      ),
    );
    expect(more.map((m) => m.data)).toEqual([{ far: 1 }, { far: 2 }, { far: 3 }]);
    expect(await states()).toEqual(['CANCELED', 'WORKING']);
    expect(near.client.streams(farPeer)).toBe(1);
    second.abort(new PlexusError('CANCELLED', 'stop two'));
    expect(await hangSecond).toBe('CANCELLED');
    await until(async () => (await states()).join() === 'CANCELED,CANCELED', {
      what: 'both far jobs cancelled',
    });
  });

  it('fails the calls of a killed stream retryable, cancels their far jobs, then opens another', async () => {
    const { far, farPeer, near } = await pair();
    const client = await clientOf(near);
    const calls = [1, 2].map((i) =>
      client.call(farPeer, request('demo.hang', i, 'worker'), { signal: new AbortController().signal }).then(
        () => undefined,
        (e: unknown) => e,
      ),
    );
    const ids = await working(far, 2);
    const { peerIdFromString } = await import('@libp2p/peer-id');
    await near.peer.hangUp(peerIdFromString(farPeer)); // the connection, and every stream on it, dies
    for (const failure of await Promise.all(calls)) {
      expect(failure).toBeInstanceOf(PlexusError);
      expect({ code: (failure as PlexusError).code, retryable: (failure as PlexusError).retryable }).toEqual({
        code: 'PEER_UNAVAILABLE',
        retryable: true,
      });
      expect(wasNeverSent(failure as PlexusError)).toBe(false); // it was sent: never failed over (RT-060)
    }
    for (const id of ids) {
      await until(async () => (await stateOf(far, id)) === 'CANCELED', { what: `far job ${id} cancelled` });
    }
    const after = await client.call(farPeer, request('demo.work', 'again', 'worker'), {
      signal: new AbortController().signal,
    });
    expect(after.data).toEqual({ far: 'again' });
    expect(client.streams(farPeer)).toBe(1);
  });

  it('refuses an oversize frame by closing only that stream; the client never sends one', async () => {
    const { farPeer, near } = await pair();
    const busy = near.client.call(farPeer, request('demo.work', 'kept', 'worker'), {
      signal: new AbortController().signal,
    });
    const raw = await wire(near, farPeer);
    raw.send(Uint8Array.from([0x7f, 0xff, 0xff, 0xff, 0x7b]));
    const refused = refusalOf(await raw.outcome(undefined));
    expect(refused.code).toBe('INPUT_TOO_LARGE');
    await until(() => raw.ended.value, { what: 'the refused stream closed' });
    expect((await busy).data).toEqual({ far: 'kept' });
    // the client checks its own frames: an oversize call fails alone, not retryable, and the stream stays
    const small = await clientOf(near, { maxFrameBytes: 4096, retry: { delaysMs: [1, 1] } });
    const big = await small
      .call(farPeer, request('demo.work', 'x'.repeat(8000), 'worker'), {
        signal: new AbortController().signal,
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(big).toBeInstanceOf(PlexusError);
    expect({ code: (big as PlexusError).code, retryable: (big as PlexusError).retryable }).toEqual({
      code: 'INPUT_TOO_LARGE',
      retryable: false,
    });
    const fine = await small.call(farPeer, request('demo.work', 'y', 'worker'), {
      signal: new AbortController().signal,
    });
    expect(fine.data).toEqual({ far: 'y' });
  });

  it('refuses forged, replayed and malformed call frames by id; the stream and its other calls go on', async () => {
    const { far, farPeer, near } = await pair();
    const raw = await wire(near, farPeer);
    raw.send(signedCall(near, 1, request('demo.hang', null, 'worker')));
    const [hanging] = await working(far, 1);
    const good = signedCall(near, 2, request('demo.work', 'a', 'worker'));
    const forged = signedCall(near, 3, request('demo.work', 'b', 'worker'));
    const forgedFrame = {
      ...forged,
      signed: { ...(forged as { signed: object }).signed, d: request('demo.work', 'evil', 'worker') },
    } as unknown as MuxFrame;
    raw.send(good, forgedFrame);
    expect(await raw.outcome(2)).toMatchObject({
      t: 'answer',
      envelope: { kind: 'response', data: { far: 'a' } },
    });
    expect(refusalOf(await raw.outcome(3)).code).toBe('SIGNATURE_INVALID');
    // the same signed envelope again under a new id: a replay
    raw.send({ ...(good as object), id: 4 } as MuxFrame);
    expect(refusalOf(await raw.outcome(4)).code).toBe('SIGNATURE_REPLAYED');
    // a wrong domain, a frame of the wrong type, an id still in flight
    const wrongDomain = signEnvelope(request('demo.work', 'c', 'worker') as unknown as JsonValue, {
      key: near.key,
      domain: rpcDomain('demo.other'),
    });
    raw.send(
      { t: 'call', id: 5, signed: wrongDomain as unknown as JsonValue },
      { t: 'progress', id: 6, seq: 1, data: null },
      signedCall(near, 1, request('demo.work', 'dup', 'worker')),
    );
    expect(refusalOf(await raw.outcome(5)).code).toBe('SIGNATURE_DOMAIN_MISMATCH');
    expect(refusalOf(await raw.outcome(6)).code).toBe('INVALID_REQUEST');
    await until(() => raw.frames.some((f) => f.t === 'refused' && f.id === 1), {
      what: 'the duplicate id refused',
    });
    // the first call was not disturbed: still working, and a later call on the stream answers
    expect(await stateOf(far, hanging!)).toBe('WORKING');
    raw.send(signedCall(near, 7, request('demo.work', 'd', 'worker')));
    expect(await raw.outcome(7)).toMatchObject({ t: 'answer', envelope: { data: { far: 'd' } } });
    // a cancel frame cancels the far job; nothing more comes for its id
    raw.send({ t: 'cancel', id: 1 });
    await until(async () => (await stateOf(far, hanging!)) === 'CANCELED', {
      what: 'the hanging job cancelled',
    });
    expect(raw.frames.filter((f) => f.t === 'answer' && f.id === 1)).toEqual([]);
    // a frame without an id refuses the stream itself
    raw.send(encodeFrame({ t: 'call', signed: null }));
    expect(refusalOf(await raw.outcome(undefined)).code).toBe('INVALID_REQUEST');
    await until(() => raw.ended.value, { what: 'the refused stream closed' });
    const after = await near.client.call(farPeer, request('demo.work', 'e', 'worker'), {
      signal: new AbortController().signal,
    });
    expect(after.data).toEqual({ far: 'e' });
  });

  it('refuses calls over the in-flight bounds at once (RATE_LIMITED, retryable), per stream and per peer', async () => {
    const { far, farPeer, near } = await pair({ maxCallsPerStream: 2, maxCallsPerPeer: 3 });
    const one = await wire(near, farPeer);
    one.send(
      signedCall(near, 1, request('demo.hang', 1, 'worker')),
      signedCall(near, 2, request('demo.hang', 2, 'worker')),
    );
    await working(far, 2);
    one.send(signedCall(near, 3, request('demo.work', 3, 'worker')));
    const perStream = refusalOf(await one.outcome(3));
    expect(perStream).toMatchObject({
      code: 'RATE_LIMITED',
      retryable: true,
      details: { reason: 'overloaded', limit: 2 },
    });
    const two = await wire(near, farPeer);
    two.send(signedCall(near, 1, request('demo.hang', 4, 'worker')));
    await working(far, 3);
    two.send(signedCall(near, 2, request('demo.work', 5, 'worker')));
    const perPeer = refusalOf(await two.outcome(2));
    expect(perPeer).toMatchObject({
      code: 'RATE_LIMITED',
      retryable: true,
      details: { reason: 'overloaded', limit: 3 },
    });
    // room again once a call ends (the cancel frame frees its place at once)
    one.send({ t: 'cancel', id: 1 });
    await until(async () => (await workingCount(far)) === 2, { what: 'the cancelled call gone' });
    two.send(signedCall(near, 3, request('demo.work', 6, 'worker')));
    expect(await two.outcome(3)).toMatchObject({ t: 'answer', envelope: { data: { far: 6 } } });
    // closing a stream cancels its calls
    one.stream.abort(new Error('done'));
    two.stream.abort(new Error('done'));
    await until(async () => (await workingCount(far)) === 0, { what: 'every far call cancelled' });
    // the client's own bound: with one stream of one call, a second concurrent call is refused locally
    const tight = await clientOf(near, { streamsPerPeer: 1, callsPerStream: 1 });
    const held = new AbortController();
    const hanging = tight
      .call(farPeer, request('demo.hang', 7, 'worker'), { signal: held.signal })
      .catch(codeOf);
    await working(far, 1);
    const second = await tight
      .call(farPeer, request('demo.work', 8, 'worker'), { signal: new AbortController().signal })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(second).toBeInstanceOf(PlexusError);
    expect((second as PlexusError).code).toBe('RATE_LIMITED');
    expect((second as PlexusError).message).toContain('from this node');
    held.abort(new PlexusError('CANCELLED', 'done'));
    expect(await hanging).toBe('CANCELLED');
  });

  it('calls a peer that does not speak 1.1.0 on 1.0.0, one stream per call', async () => {
    const { farPeer, near } = await pair();
    const { peerIdFromString } = await import('@libp2p/peer-id');
    // an older node: its peer answers "not supported" for the new protocol
    const old = await clientOf(near, {
      dial: () => (id, protocol, signal) =>
        near.peer.dialProtocol(
          peerIdFromString(id),
          protocol === RPC_MUX_PROTOCOL ? '/plexus/rpc/0.0.0-none' : protocol,
          {
            signal,
          },
        ),
    });
    const answer = await old.call(farPeer, request('demo.work', 'old', 'worker'), {
      signal: new AbortController().signal,
    });
    expect(answer.data).toEqual({ far: 'old' });
    expect(old.streams(farPeer)).toBe(0);
  });

  it('closes a stream with no call in flight for the idle timeout, never one with a call running (MESH-49)', async () => {
    const { far, farPeer, near } = await pair({ idleStreamTimeoutMs: 400 });
    // a stream whose call runs, opened first; then one that carries nothing
    const busy = await wire(near, farPeer);
    busy.send(signedCall(near, 1, request('demo.hang', 'held', 'worker')));
    const [jobId] = await working(far, 1);
    const idle = await wire(near, farPeer);
    await until(() => idle.ended.value, { what: 'the idle stream closed by the callee' });
    // the busy one has been open longer than the idle one, its call still running
    expect(busy.ended.value).toBe(false);
    expect(await stateOf(far, jobId ?? '')).toBe('WORKING');
    // its call cancelled, it is idle in turn: closed too
    busy.send({ t: 'cancel', id: 1 });
    await until(async () => (await stateOf(far, jobId ?? '')) === 'CANCELED', {
      what: 'the far job cancelled',
    });
    await until(() => busy.ended.value, { what: 'the stream idle after its call closed by the callee' });

    // the pool drops a stream closed for idleness and opens another for the next call
    const client = await clientOf(near);
    const first = await client.call(farPeer, request('demo.work', 1, 'worker'), {
      signal: new AbortController().signal,
    });
    expect(first.data).toEqual({ far: 1 });
    expect(client.streams(farPeer)).toBe(1);
    await until(() => client.streams(farPeer) === 0, { what: "the client's idle stream dropped" });
    const second = await client.call(farPeer, request('demo.work', 2, 'worker'), {
      signal: new AbortController().signal,
    });
    expect(second.data).toEqual({ far: 2 });
    expect(client.streams(farPeer)).toBe(1);
  });
});
