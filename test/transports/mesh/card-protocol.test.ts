/**
 * `/plexus/card/1.0.0` against real libp2p peers (issue 15 item 4): a node answers a good
 * request with its signed local cards, answers malformed, oversized and over-long requests
 * with an error document and keeps serving; and the asking side refuses answers that are
 * forged, tampered, signed for another domain or by another peer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { peerIdFromString } from '@libp2p/peer-id';
import type { Stream } from '@libp2p/interface';
import { afterEach, describe, expect, it } from 'vitest';
import { toPlexusError } from '../../../src/core/errors.js';
import { createNode, defaultFaces, type Node } from '../../../src/node/index.js';
import type { NodeInit } from '../../../src/node/node-init.js';
import {
  envelopeVerifier,
  generateKeyPair,
  identityFromPublicKey,
  signEnvelope,
  type Ed25519KeyPair,
} from '../../../src/security/index.js';
import {
  CARD_DOMAIN,
  CARD_PROTOCOL,
  CARD_REQUEST_MAX_BYTES,
  requestCards,
} from '../../../src/transports/mesh/card-protocol.js';
import type { MeshStatus } from '../../../src/transports/mesh/mesh-node.js';
import { createMeshPeer, dialAddress, type MeshLibp2p } from '../../../src/transports/mesh/mesh-peer.js';
import { agent } from '../../runtime/helpers.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function harness(): Promise<{ peer: MeshLibp2p; key: Ed25519KeyPair }> {
  const key = generateKeyPair();
  const peer = await createMeshPeer({
    seed: key.secretKey,
    listen: ['/ip4/127.0.0.1/tcp/0'],
    announce: [],
    maxMessageBytes: 65536,
  });
  cleanups.push(() => peer.stop());
  return { peer, key };
}

async function meshNode(init: NodeInit): Promise<Node> {
  const dataDir = mkdtempSync(join(tmpdir(), 'plexus-card-'));
  cleanups.push(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });
  const options: NodeInit = {
    dataDir,
    port: 0,
    dev: true,
    primitives: false,
    ...init,
    mesh: { enabled: true },
  };
  const node = createNode({ ...options, faces: defaultFaces(options) });
  await node.start();
  cleanups.push(() => node.stop({ drainMs: 0 }));
  return node;
}

/** Sends `bytes` on a new card stream and reads the whole answer as JSON. */
async function exchange(from: MeshLibp2p, to: string, bytes: Uint8Array): Promise<unknown> {
  const stream: Stream = await from.dialProtocol(peerIdFromString(to), CARD_PROTOCOL, {
    signal: AbortSignal.timeout(10_000),
  });
  if (!stream.send(bytes)) await stream.onDrain();
  await stream.close();
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream) chunks.push(chunk instanceof Uint8Array ? chunk : chunk.subarray());
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
}

const text = (value: string): Uint8Array => new TextEncoder().encode(value);

describe('/plexus/card/1.0.0', () => {
  it('answers signed local cards, and an error document to every bad request', async () => {
    const node = await meshNode({
      agents: [agent('alpha', { 'alpha.ping': () => 'pong' }), agent('beta', { 'beta.ping': () => 'b' })],
    });
    const s = (await (await fetch(`${node.url}/v1/mesh`)).json()) as MeshStatus;
    const address = s.addresses.find((a) => a.startsWith('/ip4/127.0.0.1/'));
    const { peer: client } = await harness();
    await dialAddress(client, address ?? '', AbortSignal.timeout(10_000));

    // A good request: only the cards offering the verb, signed by the node for the card domain.
    const good = await exchange(client, s.peerId, text(JSON.stringify({ verbs: ['alpha.ping'] })));
    const { signer, envelope } = envelopeVerifier().verify(good, CARD_DOMAIN);
    expect(signer.peerId).toBe(s.peerId);
    expect((envelope.d as { cards: { id: string }[] }).cards.map((c) => c.id)).toEqual(['alpha']);
    // with the node's peer card (MESH-50)
    expect((envelope.d as { peer?: unknown }).peer).toMatchObject({
      taskTypes: ['alpha.ping', 'beta.ping'],
      tools: [],
    });
    // No verbs: every local card.
    const all = (await exchange(client, s.peerId, text('{}'))) as { d: { cards: { id: string }[] } };
    expect(all.d.cards.map((c) => c.id).sort()).toEqual(['alpha', 'beta']);

    const bad: [string, Uint8Array, string][] = [
      ['not JSON', text('{"verbs": ['), 'PARSE_ERROR'],
      ['not UTF-8', new Uint8Array([0xff, 0xfe, 0x7b]), 'PARSE_ERROR'],
      ['not an object', text('["alpha.ping"]'), 'INVALID_PARAMS'],
      ['an unknown field', text('{"verbs": [], "all": true}'), 'INVALID_PARAMS'],
      ['verbs not a list', text('{"verbs": "alpha.ping"}'), 'INVALID_PARAMS'],
      ['a bad verb name', text('{"verbs": ["no spaces allowed"]}'), 'INVALID_PARAMS'],
      [
        'too many verbs',
        text(JSON.stringify({ verbs: Array.from({ length: 33 }, (_, i) => `a.b${i}.c`) })),
        'INVALID_PARAMS',
      ],
      ['oversized', new Uint8Array(CARD_REQUEST_MAX_BYTES + 1).fill(0x20), 'INPUT_TOO_LARGE'],
    ];
    for (const [what, bytes, code] of bad) {
      const answer = (await exchange(client, s.peerId, bytes)) as {
        error?: { code: string; message: string };
      };
      expect(answer.error?.code, what).toBe(code);
      expect(answer.error?.message.length, what).toBeGreaterThan(10);
    }
    // Still serving, over the same connection, and over HTTP.
    const again = (await exchange(client, s.peerId, text('{"verbs":["beta.ping"]}'))) as {
      d: { cards: { id: string }[] };
    };
    expect(again.d.cards.map((c) => c.id)).toEqual(['beta']);
    expect((await fetch(`${node.url}/healthz`)).status).toBe(200);
  });

  it('refuses answers forged, tampered, for another domain, or signed by another peer', async () => {
    const { peer: server, key: serverKey } = await harness();
    const { peer: client } = await harness();
    const stranger = generateKeyPair();
    const serverPeerId = server.peerId.toString();
    const card = { id: 'x', name: 'x', version: '1', tier: 'L3', capabilities: [] };
    let answer: () => unknown = () => ({});
    await server.handle(CARD_PROTOCOL, async (stream) => {
      let read = 0;
      for await (const chunk of stream) read += chunk.byteLength;
      expect(read).toBeGreaterThan(0);
      stream.send(new TextEncoder().encode(JSON.stringify(answer())));
      await stream.close();
    });
    await dialAddress(client, server.getMultiaddrs()[0]?.toString() ?? '', AbortSignal.timeout(10_000));
    let taken: Awaited<ReturnType<typeof requestCards>> | undefined;
    const ask = async (): Promise<string> => {
      try {
        taken = await requestCards(client, peerIdFromString(serverPeerId), ['x.y.z'], {
          verifier: envelopeVerifier(),
          signal: AbortSignal.timeout(10_000),
        });
        return 'accepted';
      } catch (error) {
        return toPlexusError(error).code;
      }
    };
    // The honest answer: signed by the peer asked, for the card domain.
    expect(identityFromPublicKey(serverKey.publicKey).peerId).toBe(serverPeerId);
    answer = () => signEnvelope({ cards: [card] }, { key: serverKey, domain: CARD_DOMAIN, from: 'peerId' });
    expect(await ask()).toBe('accepted');
    expect(taken).toEqual({ cards: [card] }); // an older node: no peer card
    // MESH-50: the peer card rides with the cards; one that is not an object refuses the answer
    const peer = { reputation: 0.5, geo: 'eu-west', taskTypes: ['x.y.z'], tools: [] };
    answer = () =>
      signEnvelope({ cards: [card], peer }, { key: serverKey, domain: CARD_DOMAIN, from: 'peerId' });
    expect(await ask()).toBe('accepted');
    expect(taken).toEqual({ cards: [card], peer });
    answer = () =>
      signEnvelope(
        { cards: [card], peer: 'trusted' },
        { key: serverKey, domain: CARD_DOMAIN, from: 'peerId' },
      );
    expect(await ask()).toBe('INVALID_PARAMS');
    answer = () => signEnvelope({ cards: [card] }, { key: stranger, domain: CARD_DOMAIN, from: 'peerId' });
    expect(await ask()).toBe('SIGNER_MISMATCH');
    answer = () => {
      const signed = signEnvelope({ cards: [card] }, { key: stranger, domain: CARD_DOMAIN, from: 'peerId' });
      return { ...signed, d: { cards: [{ ...card, id: 'tampered' }] } };
    };
    expect(await ask()).toBe('SIGNATURE_INVALID');
    answer = () => signEnvelope({ cards: [card] }, { key: stranger, domain: 'plexus/other', from: 'peerId' });
    expect(await ask()).toBe('SIGNATURE_DOMAIN_MISMATCH');
    answer = () => ({ error: { code: 'INVALID_PARAMS', message: 'no' } });
    expect(await ask()).toBe('PEER_UNAVAILABLE');
    answer = () => 'not an envelope';
    expect(await ask()).toBe('MALFORMED_ENVELOPE');
  });
});
