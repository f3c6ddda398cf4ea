/**
 * Mesh rpc under churn (issue 15, "bad input never crashes a node"): a real node answers calls
 * from a harness peer over `/plexus/rpc/1.1.0` while, at seeded random moments, the harness
 * hangs the connection up (every stream on it is reset), cancels calls in flight, or resets a
 * raw mux stream mid-call. Every call settles (an answer or a retryable failure), nothing is
 * left uncaught (Vitest fails the file on an uncaught exception or unhandled rejection), and the
 * node answers normally afterwards. Bounded: a fixed number of calls and churn steps.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PlexusError } from '../../../src/core/errors.js';
import type { Node } from '../../../src/node/index.js';
import { rpcDomain, signEnvelope } from '../../../src/security/index.js';
import type { JsonValue } from '../../../src/core/json.js';
import { encodeFrame } from '../../../src/transports/mesh/rpc-frames.js';
import { agent, request } from '../../runtime/helpers.js';
import { harness, meshAddress, meshNode, meshStatus, runCleanups } from './rpc-helpers.js';

afterEach(runCleanups);

/** A seeded generator in [0, 1) (mulberry32). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A node whose worker answers after a few ms, so calls are in flight when the churn strikes. */
const farNode = (): Promise<Node> =>
  meshNode(
    {},
    {
      agents: [
        agent('worker', {
          'demo.work': async (input) => {
            await new Promise((resolve) => setTimeout(resolve, 1 + (Number(input) % 5)));
            return { far: input };
          },
        }),
      ],
    },
  );

describe('mesh rpc under churn', () => {
  it('settles every call, leaves nothing uncaught and keeps answering while streams are reset', async () => {
    const random = prng(51);
    const far = await farNode();
    const farPeer = (await meshStatus(far)).peerId;
    const address = await meshAddress(far);
    const near = await harness(address);
    const { peerIdFromString } = await import('@libp2p/peer-id');
    const settled = { answered: 0, failed: 0 };
    const unexpected: string[] = [];
    let n = 0;
    const caller = async (): Promise<void> => {
      for (let i = 0; i < 40; i++) {
        n += 1;
        const controller = new AbortController();
        if (random() < 0.1)
          setTimeout(
            () => {
              controller.abort();
            },
            Math.floor(random() * 4),
          );
        try {
          const answer = await near.client.call(farPeer, request('demo.work', n, 'worker'), {
            signal: controller.signal,
          });
          if (answer.kind === 'response') settled.answered += 1;
          else settled.failed += 1;
        } catch (error) {
          settled.failed += 1;
          const code = error instanceof PlexusError ? error.code : String(error);
          if (!['PEER_UNAVAILABLE', 'CANCELLED', 'TIMEOUT'].includes(code)) unexpected.push(code);
        }
      }
    };
    const churn = async (): Promise<void> => {
      for (let step = 0; step < 12; step++) {
        await new Promise((resolve) => setTimeout(resolve, 20 + Math.floor(random() * 60)));
        const pick = random();
        if (pick < 0.5) {
          // every stream of the connection is reset at once
          await near.peer.hangUp(peerIdFromString(farPeer)).catch(() => undefined);
          await near.peer.dial(peerIdFromString(farPeer)).catch(() => undefined);
        } else {
          // a raw mux stream: a call, then reset before (or as) its answer comes
          const stream = await near.openMux(farPeer).catch(() => undefined);
          if (stream === undefined) continue;
          const signed = signEnvelope(request('demo.work', 7, 'worker') as unknown as JsonValue, {
            key: near.key,
            domain: rpcDomain('demo.work'),
          });
          try {
            stream.send(encodeFrame({ t: 'call', id: 1, signed: signed as unknown as JsonValue }));
          } catch {
            // already gone
          }
          await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 3)));
          stream.abort(new Error('chaos: reset mid-call'));
        }
      }
    };
    await Promise.all([caller(), caller(), caller(), caller(), churn()]);
    expect(unexpected).toEqual([]);
    expect(settled.answered + settled.failed).toBe(160);
    expect(settled.answered).toBeGreaterThan(0);
    // the node still answers normally
    const after = await near.client.call(farPeer, request('demo.work', 'after', 'worker'), {
      signal: AbortSignal.timeout(10_000),
    });
    expect(after).toMatchObject({ kind: 'response', data: { far: 'after' } });
  }, 60_000);
});
