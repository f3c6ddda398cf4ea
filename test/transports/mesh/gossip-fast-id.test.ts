/**
 * The message ids of the mesh's gossipsub. The envelope id (MESH-48): copies of one message
 * share it, and a copy changed in any byte of its topic or data has another, so a forged copy
 * cannot shadow the genuine message. The fast message id of a gossipsub that signs its
 * messages itself (MESH-38, the bench's raw baseline): the copies of one message share it,
 * so gossipsub drops them before checking their signature again; a copy changed in any field
 * (origin, sequence number, topic, data) has another one, so it is still verified, rejected
 * and scored. Checked as properties (seeded, test/support/fast-check-seed.ts); the real stack
 * with it on is exercised by mesh-attack.test.ts and mesh-topology.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  envelopeMessageId,
  fastMessageId,
  type WireMessage,
} from '../../../src/transports/mesh/gossip-fast-id.js';

const bytes = fc.uint8Array({ maxLength: 64 });
const message = fc.record({
  from: bytes,
  seqno: bytes,
  topic: fc.string({ maxLength: 40 }),
  data: fc.uint8Array({ maxLength: 2048 }),
});

describe('the gossip fast message id', () => {
  it('is the same for every copy of a message', () => {
    fc.assert(
      fc.property(message, (m) => {
        const copy: WireMessage = {
          from: new Uint8Array(m.from),
          seqno: new Uint8Array(m.seqno),
          topic: m.topic.slice(),
          data: new Uint8Array(m.data),
        };
        expect(fastMessageId(copy)).toBe(fastMessageId(m));
      }),
    );
  });

  it('differs when any field differs, boundaries included', () => {
    fc.assert(
      fc.property(message, message, (a, b) => {
        const same =
          Buffer.from(a.from).equals(Buffer.from(b.from)) &&
          Buffer.from(a.seqno).equals(Buffer.from(b.seqno)) &&
          a.topic === b.topic &&
          Buffer.from(a.data).equals(Buffer.from(b.data));
        fc.pre(!same);
        expect(fastMessageId(a)).not.toBe(fastMessageId(b));
      }),
    );
    // the same bytes split differently between fields
    const one = { from: Uint8Array.of(1, 2), seqno: Uint8Array.of(3), topic: 't', data: Uint8Array.of() };
    const two = { from: Uint8Array.of(1), seqno: Uint8Array.of(2, 3), topic: 't', data: Uint8Array.of() };
    expect(fastMessageId(one)).not.toBe(fastMessageId(two));
    // a missing field and an empty one both mean "no bytes"
    expect(fastMessageId({ topic: 't' })).toBe(
      fastMessageId({ from: Uint8Array.of(), seqno: Uint8Array.of(), topic: 't', data: Uint8Array.of() }),
    );
  });

  it('changes with one flipped data bit', () => {
    fc.assert(
      fc.property(message, fc.nat(), fc.nat(7), (m, at, bit) => {
        fc.pre(m.data.byteLength > 0);
        const data = new Uint8Array(m.data);
        data[at % data.byteLength]! ^= 1 << bit;
        expect(fastMessageId({ ...m, data })).not.toBe(fastMessageId(m));
      }),
    );
  });
});

describe('the envelope message id (MESH-48)', () => {
  const unsigned = fc.record({
    topic: fc.string({ maxLength: 40 }),
    data: fc.uint8Array({ maxLength: 2048 }),
  });
  const hex = (id: Uint8Array): string => Buffer.from(id).toString('hex');

  it('is the same for every copy, 32 bytes', () => {
    fc.assert(
      fc.property(unsigned, (m) => {
        const id = envelopeMessageId(m);
        expect(id.byteLength).toBe(32);
        expect(hex(envelopeMessageId({ topic: m.topic.slice(), data: new Uint8Array(m.data) }))).toBe(
          hex(id),
        );
      }),
    );
  });

  it('differs when the topic or the data differs, boundaries included', () => {
    fc.assert(
      fc.property(unsigned, unsigned, (a, b) => {
        fc.pre(a.topic !== b.topic || !Buffer.from(a.data).equals(Buffer.from(b.data)));
        expect(hex(envelopeMessageId(a))).not.toBe(hex(envelopeMessageId(b)));
      }),
    );
    const one = { topic: 'ab', data: Uint8Array.of(0x63) };
    const two = { topic: 'a', data: Uint8Array.of(0x62, 0x63) };
    expect(hex(envelopeMessageId(one))).not.toBe(hex(envelopeMessageId(two)));
  });

  it('changes with one flipped data bit (a forged copy cannot take the genuine one’s id)', () => {
    fc.assert(
      fc.property(unsigned, fc.nat(), fc.nat(7), (m, at, bit) => {
        fc.pre(m.data.byteLength > 0);
        const data = new Uint8Array(m.data);
        data[at % data.byteLength]! ^= 1 << bit;
        expect(hex(envelopeMessageId({ ...m, data }))).not.toBe(hex(envelopeMessageId(m)));
      }),
    );
  });
});
