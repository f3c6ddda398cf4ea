import { describe, expect, expectTypeOf, it } from 'vitest';
import { EVENT_SCHEMA, eventHashBody, parseEvent, validateEvent } from '../../../src/core/records/event.js';
import type { Event } from '../../../src/core/records/event.js';
import type { RequiredKeys } from './helpers.js';
import { errorOf } from './helpers.js';

const CID_A = 'bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy';
const CID_B = 'bagaaierasords4njcts6vs7qvdjfcvgnume4hqohf65zsfguprqphs3icwea';
const FIRST: Event = {
  seq: 1,
  cid: CID_A,
  prev: null,
  type: 'agent.registered',
  data: { id: 'did:key:z6Mk' },
  time: '2025-01-01T00:00:00Z',
};
const SECOND: Event = {
  seq: 2,
  cid: CID_B,
  prev: CID_A,
  type: 'job.submitted',
  data: null,
  causation: 'req-1',
  trace: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
  tenant: 'tenant_001',
  time: '2025-01-01T00:00:01.25+02:00',
};

describe('Event schema', () => {
  it('is aligned with the Event type', () => {
    expectTypeOf<keyof Event>().toEqualTypeOf<keyof (typeof EVENT_SCHEMA)['properties']>();
    expectTypeOf<RequiredKeys<Event>>().toEqualTypeOf<(typeof EVENT_SCHEMA)['required'][number]>();
  });

  it('accepts the first event and a chained one', () => {
    expect(validateEvent(FIRST)).toEqual([]);
    expect(validateEvent(SECOND)).toEqual([]);
  });

  it('reports missing and malformed fields', () => {
    expect(validateEvent({}).map((p) => p.message)).toEqual(
      EVENT_SCHEMA.required.map((f) => `missing required property "${f}"`),
    );
    expect(
      validateEvent({
        ...SECOND,
        seq: 0,
        cid: 'Qm123',
        type: 'Job Submitted',
        trace: 'abc',
        time: 'now',
        verb: 'x',
      }),
    ).toEqual([
      { pointer: '/verb', message: 'unknown property "verb" is not allowed here' },
      { pointer: '/seq', message: 'must be >= 1' },
      { pointer: '/cid', message: 'must match the pattern ^b[a-z2-7]{8,}$' },
      { pointer: '/type', message: 'must match the pattern ^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)*$' },
      {
        pointer: '/trace',
        message: 'must match the pattern ^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$',
      },
      {
        pointer: '/time',
        message: 'must be an RFC 3339 date-time with a time zone (e.g. 2025-01-01T00:00:00Z)',
      },
    ]);
  });

  it('chains: prev is null exactly for seq 1 and never the own cid', () => {
    expect(validateEvent({ ...FIRST, prev: CID_B })).toEqual([
      { pointer: '/prev', message: 'must be null for the first event (seq 1)' },
    ]);
    expect(validateEvent({ ...SECOND, prev: null })).toEqual([
      { pointer: '/prev', message: "must be the previous event's cid (seq 2 is not the first event)" },
    ]);
    expect(validateEvent({ ...SECOND, prev: CID_B })).toEqual([
      { pointer: '/prev', message: "must differ from the event's own cid" },
    ]);
  });

  it('parseEvent throws INVALID_PARAMS with details.problems', () => {
    expect(parseEvent(SECOND)).toBe(SECOND);
    const err = errorOf(() => parseEvent({ ...SECOND, data: undefined }));
    expect(err.code).toBe('INVALID_PARAMS');
    expect(err.details).toEqual({ problems: [{ pointer: '', message: 'missing required property "data"' }] });
  });
});

describe('eventHashBody', () => {
  it('is the event without seq and cid (D9)', () => {
    expect(eventHashBody(SECOND)).toEqual({
      prev: CID_A,
      type: 'job.submitted',
      data: null,
      causation: 'req-1',
      trace: SECOND.trace,
      tenant: 'tenant_001',
      time: SECOND.time,
    });
    expect(eventHashBody(FIRST)).toEqual({
      prev: null,
      type: FIRST.type,
      data: FIRST.data,
      time: FIRST.time,
    });
  });

  it('does not depend on seq or cid', () => {
    expect(eventHashBody({ ...SECOND, seq: 99, cid: CID_A })).toEqual(eventHashBody(SECOND));
  });
});
