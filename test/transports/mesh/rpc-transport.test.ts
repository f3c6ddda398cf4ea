/**
 * `/plexus/rpc/1.0.0` (issue 15 item 5): the mesh-rpc transport passes the RouteTransport
 * contract against a real node, streams progress, and cancels the far job when the stream
 * closes; the callee refuses forged, replayed, wrong-domain, foreign-signer, malformed and
 * oversized calls with a `refused` frame, never crashing, and keeps serving.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Envelope } from '../../../src/core/envelope.js';
import { PlexusError, type ErrorData } from '../../../src/core/errors.js';
import type { JsonValue } from '../../../src/core/json.js';
import { parseTarget, wasNeverSent } from '../../../src/runtime/routing/index.js';
import {
  generateKeyPair,
  identityFromPublicKey,
  rpcDomain,
  signEnvelope,
} from '../../../src/security/index.js';
import { encodeFrame, frameReader, type RpcFrame } from '../../../src/transports/mesh/rpc-frames.js';
import { chunkBytes } from '../../../src/transports/mesh/rpc-server.js';
import { meshRpcTransport, type RpcClientStream } from '../../../src/transports/mesh/rpc-transport.js';
import { runRouteTransportContract } from '../../runtime/routing/transport-contract.js';
import { agent, request } from '../../runtime/helpers.js';
import { eventually, until } from '../../support/until.js';
import { harness, meshAddress, meshNode, meshStatus, runCleanups } from './rpc-helpers.js';

afterEach(runCleanups);

const FAR_AGENTS = [
  agent('worker', {
    'demo.work': (input) => ({ far: input }),
    'demo.fail': () => {
      throw new PlexusError('PRECONDITION_FAILED', 'the far guard did not hold');
    },
    'demo.steps': (input, ctx) => {
      for (let i = 1; i <= 3; i++) ctx.progress({ step: i });
      return { done: input };
    },
    'demo.hang': (_input, ctx) =>
      new Promise((_resolve, reject) => {
        ctx.signal.addEventListener('abort', () => {
          reject(new PlexusError('CANCELLED', 'stopped'));
        });
      }),
  }),
];

async function pair() {
  const far = await meshNode({}, { agents: FAR_AGENTS });
  const farStatus = await meshStatus(far);
  const near = await harness(await meshAddress(far));
  return { far, farPeer: farStatus.peerId, near };
}

runRouteTransportContract('mesh-rpc', async () => {
  const { far, near } = await pair();
  let closed = false;
  const closeFar = async (): Promise<void> => {
    if (!closed) await far.stop({ drainMs: 0 });
    closed = true;
  };
  return {
    transport: meshRpcTransport(near.client),
    reachable: parseTarget(`p2p://${far.nodeId}/worker`),
    foreign: parseTarget('http://127.0.0.1:9/worker'),
    ok: () => request('demo.work', 'x', 'capability:demo.work'),
    expected: { far: 'x' },
    failing: () => request('demo.fail', null, 'capability:demo.fail'),
    makeUnreachable: closeFar,
    close: closeFar,
  };
});

/** Sends raw frames on a new stream and reads the frames that come back until it closes. */
async function exchange(stream: RpcClientStream, ...chunks: Uint8Array[]): Promise<RpcFrame[]> {
  for (const chunk of chunks) stream.send(chunk);
  const reader = frameReader(1024 * 1024);
  const frames: RpcFrame[] = [];
  for await (const chunk of stream) {
    frames.push(...(reader.push(chunkBytes(chunk)) as RpcFrame[]));
    if (frames.some((f) => f.t === 'answer' || f.t === 'refused')) break;
  }
  await stream.close().catch(() => undefined);
  return frames;
}

function refusal(frames: readonly RpcFrame[]): ErrorData {
  const last = frames.at(-1);
  if (last?.t !== 'refused') throw new Error(`expected a refused frame, got ${JSON.stringify(last)}`);
  return last.error;
}

describe('mesh rpc', () => {
  it('sends progress frames for a streaming call, then the answer', async () => {
    const { farPeer, near } = await pair();
    const seen: JsonValue[] = [];
    const answer = await near.client.call(farPeer, request('demo.steps', 7, 'worker'), {
      signal: new AbortController().signal,
      onProgress: (data) => seen.push(data),
    });
    expect(answer).toMatchObject({ kind: 'response', data: { done: 7 } });
    expect(seen).toEqual([{ step: 1 }, { step: 2 }, { step: 3 }]);
  });

  it('cancels the far job when the caller closes the stream', async () => {
    const { far, farPeer, near } = await pair();
    const controller = new AbortController();
    const envelope = request('demo.hang', null, 'worker');
    const call = near.client.call(farPeer, envelope, { signal: controller.signal }).then(
      () => 'answered',
      (e: unknown) => (e instanceof PlexusError ? e.code : 'other'),
    );
    const running = async () =>
      (await far.runtime.jobs.list({})).jobs.find((j) => j.verb === 'demo.hang' && j.state === 'WORKING');
    const job = await eventually('the far job working', running);
    controller.abort(new PlexusError('CANCELLED', 'stop'));
    expect(await call).toBe('CANCELLED');
    await until(async () => (await far.runtime.jobs.get(job.id)).state === 'CANCELED', {
      what: 'the far job cancelled',
    });
  });

  it('refuses bad calls with a refused frame and keeps serving', async () => {
    const { farPeer, near } = await pair();
    const signed = (d: Envelope, domain = rpcDomain(d.verb), key = near.key) =>
      signEnvelope(d as unknown as JsonValue, { key, domain });
    const call = (value: unknown) => encodeFrame({ t: 'call', signed: value as JsonValue });
    const req = () => request('demo.work', 1, 'worker');
    const cases: [string, Uint8Array[], string][] = [
      ['a forged signature', [call({ ...signed(req()), d: { ...req(), data: 2 } })], 'SIGNATURE_INVALID'],
      ['a wrong domain', [call(signed(req(), rpcDomain('demo.other')))], 'SIGNATURE_DOMAIN_MISMATCH'],
      [
        'a call signed by another key',
        [call(signed(req(), undefined, generateKeyPair()))],
        'SIGNER_MISMATCH',
      ],
      ['not a call frame', [encodeFrame({ t: 'progress', seq: 1, data: null })], 'INVALID_REQUEST'],
      ['not JSON', [Uint8Array.from([0, 0, 0, 3, 0x7b, 0x7b, 0x7b])], 'PARSE_ERROR'],
      ['an oversized frame', [Uint8Array.from([0x7f, 0xff, 0xff, 0xff, 0x7b])], 'INPUT_TOO_LARGE'],
      [
        'a payload that is not a request',
        [call(signEnvelope({ verb: 'x' }, { key: near.key, domain: rpcDomain('x') }))],
        'MALFORMED_ENVELOPE',
      ],
    ];
    for (const [why, chunks, code] of cases) {
      const error = refusal(await exchange(await near.open(farPeer), ...chunks));
      expect({ why, code: error.code }).toEqual({ why, code });
    }
    // A replayed nonce: the same signed call twice.
    const once = call(signed(req()));
    const first = await exchange(await near.open(farPeer), once);
    expect(first.at(-1)).toMatchObject({ t: 'answer', envelope: { kind: 'response', data: { far: 1 } } });
    expect(refusal(await exchange(await near.open(farPeer), once)).code).toBe('SIGNATURE_REPLAYED');
    // Still serving.
    const after = await near.client.call(farPeer, req(), { signal: new AbortController().signal });
    expect(after).toMatchObject({ kind: 'response', data: { far: 1 } });
  });

  it('answers PEER_UNAVAILABLE (retryable) for a peer it cannot reach', async () => {
    const { near } = await pair();
    const stranger = generateKeyPair();
    const error = await near.client
      .call(identityFromPublicKey(stranger.publicKey).peerId, request('demo.work', 1, 'worker'), {
        signal: new AbortController().signal,
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(PlexusError);
    expect((error as PlexusError).code).toBe('PEER_UNAVAILABLE');
    expect((error as PlexusError).retryable).toBe(true);
    expect(wasNeverSent(error as PlexusError)).toBe(true); // no stream opened: nothing was sent (RT-060)
  });
});
