// Part 1 of bench/mesh.bench.js: gossip delivery of 1 KB messages at a fixed rate, Plexus gossip
// beside raw gossipsub, on two sets of peers in the same process linked in the same topology
// (one topic each). Gossipsub's signature policy is global to an instance, and the two rows
// differ in it, so they cannot share peers (MESH-48):
//
// - raw: `bench/raw` on the raw set, gossipsub signing its own messages (`StrictSign`, its
//   default, with the MESH-38 fast id — raw gossipsub as before MESH-48), a topic with no
//   validator and no score parameters; each message is 1024 bytes (its sequence number in the
//   first 4), published as is.
// - Plexus: `hyperspace/tasks/bench` on the mesh's own peers, as a mesh node serves a topic
//   (src/transports/mesh/mesh-node.ts): gossipsub signing nothing (`StrictNoSign`, messages
//   identified by a digest of their bytes), the mesh's score parameters on the topic, a topic
//   validator running the mesh's gossipValidator (size, topic, JSON, D3 signature, domain,
//   window, nonce, `from` = the key's) with an envelope verifier per peer, and each message a D3
//   envelope signed by the publisher's node key for the topic, its payload `{ seq, body }` with
//   a 1024-character body; the receiver takes the payload from the validator's verdict in its
//   message handler, as the mesh node does.
//
// The two rows run in alternating phases (raw first in odd rounds, Plexus first in even ones),
// each phase alone at `rate` messages a second from seeded random publishers. A message's
// delivery time is from the start of its publication (signing included) to its message event
// on each of the other peers (validation included). A delivery that has not arrived when the
// phase's last message is 5 s old counts as missed.
import { signEnvelope, envelopeVerifier } from '../../dist/security/index.js';
import { gossipValidator } from '../../dist/transports/mesh/gossip-validator.js';
import { scoreTopic } from '../../dist/transports/mesh/mesh-scoring.js';
import { ms, pct } from './peers.js';

const RAW_TOPIC = 'bench/raw';
const PLEXUS_TOPIC = 'hyperspace/tasks/bench';
const BODY_BYTES = 1024;
const MISS_AFTER_MS = 5000;

/**
 * @param {{ key: any, peer: any }[]} peers the mesh's peers (the Plexus row)
 * @param {{ key: any, peer: any }[]} rawPeers as many peers in the same topology, gossipsub signing (the raw row)
 * @param {() => number} random
 * @param {{ rate: number, messages: number, rounds: number }} opts
 */
export async function gossipBench(peers, rawPeers, random, opts) {
  const encoder = new TextEncoder();
  /** Per row: publication start time by sequence number, and delivery samples. */
  const rows = {
    raw: { sent: new Map(), got: new Map(), times: [], missed: 0, cpuMs: 0, published: 0 },
    plexus: { sent: new Map(), got: new Map(), times: [], missed: 0, cpuMs: 0, published: 0 },
  };
  let measuring = false;
  /** Called on every delivery; the phase in progress waits on it. */
  let onDelivery = () => {};
  const delivered = (row, seq) => {
    const r = rows[row];
    const at = r.sent.get(seq);
    if (at === undefined) return;
    const n = (r.got.get(seq) ?? 0) + 1;
    r.got.set(seq, n);
    if (measuring) r.times.push(performance.now() - at);
    onDelivery();
  };

  for (const { peer } of peers) {
    const { pubsub } = peer.services;
    const validator = gossipValidator({ verifier: envelopeVerifier(), maxMessageBytes: 64 * 1024 });
    const verified = new WeakMap();
    if (!scoreTopic(pubsub, PLEXUS_TOPIC)) throw new Error('gossipsub score table not found');
    pubsub.topicValidators.set(PLEXUS_TOPIC, (_from, msg) => {
      const verdict = validator.validate(msg.topic, msg.data);
      if (verdict.result === 'accept') verified.set(msg, verdict.envelope.d);
      return verdict.result;
    });
    pubsub.addEventListener('message', (event) => {
      const msg = event.detail;
      if (msg.topic === PLEXUS_TOPIC) delivered('plexus', verified.get(msg)?.seq);
    });
    pubsub.subscribe(PLEXUS_TOPIC);
  }
  for (const { peer } of rawPeers) {
    const { pubsub } = peer.services;
    pubsub.addEventListener('message', (event) => {
      const msg = event.detail;
      if (msg.topic === RAW_TOPIC) {
        delivered('raw', new DataView(msg.data.buffer, msg.data.byteOffset, 4).getUint32(0));
      }
    });
    pubsub.subscribe(RAW_TOPIC);
  }

  let seq = 0;
  const body = 'x'.repeat(BODY_BYTES);
  const publish = async (row, from) => {
    seq += 1;
    const r = rows[row];
    const { key, peer } = (row === 'raw' ? rawPeers : peers)[from];
    r.sent.set(seq, performance.now());
    r.published += 1;
    if (row === 'raw') {
      const data = new Uint8Array(BODY_BYTES);
      for (let i = 4; i < BODY_BYTES; i += 1) data[i] = (seq + i) & 0xff;
      new DataView(data.buffer).setUint32(0, seq);
      await peer.services.pubsub.publish(RAW_TOPIC, data);
    } else {
      const signed = signEnvelope({ seq, body }, { key, domain: PLEXUS_TOPIC, from: 'peerId' });
      await peer.services.pubsub.publish(PLEXUS_TOPIC, encoder.encode(JSON.stringify(signed)));
    }
    return seq;
  };

  /** Waits until every message of `seqs` reached every other peer, or `deadline`. */
  const settle = (row, seqs, deadline) =>
    new Promise((resolve) => {
      const want = peers.length - 1;
      const done = () => seqs.every((s) => (rows[row].got.get(s) ?? 0) >= want);
      const timer = setTimeout(finish, Math.max(0, deadline - performance.now()));
      function finish() {
        clearTimeout(timer);
        onDelivery = () => {};
        resolve(done());
      }
      onDelivery = () => {
        if (done()) finish();
      };
      if (done()) finish();
    });

  // Warm-up: the topic meshes form at gossipsub's heartbeats; wait until a message of each row
  // reaches every peer (at most 20 tries).
  for (const row of ['raw', 'plexus']) {
    let ok = false;
    for (let attempt = 0; attempt < 20 && !ok; attempt += 1) {
      const s = await publish(row, Math.floor(random() * peers.length));
      ok = await settle(row, [s], performance.now() + 2000);
    }
    if (!ok) throw new Error(`gossip warm-up: a ${row} message never reached all ${peers.length} peers`);
    rows[row].published = 0;
    rows[row].sent.clear(); // late copies of warm-up messages are not samples
  }

  // Connections closed and opened during the phases (0 on a healthy run): on an overloaded
  // process the connection monitor aborts connections whose heartbeat is late, and the
  // re-dials (Noise handshakes) then compete with the messages.
  const churn = { closed: 0, opened: 0 };
  for (const { peer } of [...peers, ...rawPeers]) {
    peer.addEventListener('connection:close', () => {
      if (measuring) churn.closed += 1;
    });
    peer.addEventListener('connection:open', () => {
      if (measuring) churn.opened += 1;
    });
  }

  const phase = async (row) => {
    const r = rows[row];
    const seqs = [];
    const gap = 1000 / opts.rate;
    const cpu = process.cpuUsage();
    const start = performance.now();
    measuring = true;
    for (let k = 0; k < opts.messages; k += 1) {
      const due = start + k * gap;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      seqs.push(await publish(row, Math.floor(random() * peers.length)));
    }
    await settle(row, seqs, performance.now() + MISS_AFTER_MS);
    measuring = false;
    const used = process.cpuUsage(cpu);
    r.cpuMs += (used.user + used.system) / 1000;
    for (const s of seqs) {
      r.missed += peers.length - 1 - Math.min(peers.length - 1, r.got.get(s) ?? 0);
      r.sent.delete(s); // a delivery after the phase is neither a sample nor a later row's
    }
  };
  for (let round = 0; round < opts.rounds; round += 1) {
    for (const row of round % 2 === 0 ? ['raw', 'plexus'] : ['plexus', 'raw']) await phase(row);
  }

  const summary = (row) => {
    const r = rows[row];
    const sorted = [...r.times].sort((a, b) => a - b);
    return {
      messages: r.published,
      deliveries: sorted.length,
      missed: r.missed,
      p50Ms: ms(pct(sorted, 50)),
      p99Ms: ms(pct(sorted, 99)),
      cpuMsPerMessage: Number((r.cpuMs / Math.max(1, r.published)).toFixed(2)),
    };
  };
  const raw = summary('raw');
  const plexus = summary('plexus');
  for (const { peer } of peers) peer.services.pubsub.unsubscribe(PLEXUS_TOPIC);
  for (const { peer } of rawPeers) peer.services.pubsub.unsubscribe(RAW_TOPIC);
  return {
    raw,
    plexus,
    connectionsDuringPhases: churn,
    ratioP99: raw.p99Ms ? Number((plexus.p99Ms / raw.p99Ms).toFixed(2)) : null,
  };
}
