import { describe, expect, expectTypeOf, it } from 'vitest';
import type { Envelope } from '../../../src/core/envelope.js';
import { ENVELOPE_KINDS } from '../../../src/core/envelope.js';
import {
  ENVELOPE_SCHEMA,
  parseEnvelope,
  validateEnvelope,
} from '../../../src/core/records/envelope-schema.js';
import type { RequiredKeys } from './helpers.js';
import { errorOf } from './helpers.js';

const REQUEST: Envelope = {
  id: '550e8400-e29b-41d4-a716-446655440000',
  kind: 'request',
  from: 'did:key:z6Mkcaller',
  to: 'broadcast',
  verb: 'soul.memory.recall@1',
  data: { query: 'last conversation' },
  correlationId: 'c-1',
  causationId: 'c-0',
  scopeId: 's',
  sessionId: 'sess',
  tenantId: 'tenant_001',
  userId: 'user_1',
  traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
  timestamp: '2025-12-15T10:30:00Z',
  deadline: '2025-12-15T10:30:30Z',
  capability: 'eyJhbGciOiJFZERTQSJ9.e30.sig',
  schemaVersion: '1.0',
  extensions: { _x_note: 1 },
};

describe('Envelope schema', () => {
  it('is aligned with the Envelope type', () => {
    expectTypeOf<keyof Envelope>().toEqualTypeOf<keyof (typeof ENVELOPE_SCHEMA)['properties']>();
    expectTypeOf<RequiredKeys<Envelope>>().toEqualTypeOf<(typeof ENVELOPE_SCHEMA)['required'][number]>();
  });

  it('lists exactly the envelope kinds', () => {
    expect(ENVELOPE_SCHEMA.properties.kind.enum).toEqual(ENVELOPE_KINDS);
  });

  it('accepts a full request and a minimal notification', () => {
    expect(validateEnvelope(REQUEST)).toEqual([]);
    expect(
      validateEnvelope({ id: 'x', kind: 'notification', from: 'a', to: 'b', verb: '', data: null }),
    ).toEqual([]);
  });

  it('reports every missing field and every bad one', () => {
    expect(validateEnvelope({}).map((p) => p.message)).toEqual(
      ENVELOPE_SCHEMA.required.map((f) => `missing required property "${f}"`),
    );
    expect(
      validateEnvelope({
        ...REQUEST,
        kind: 'ask',
        traceparent: '00-abc',
        timestamp: 'today',
        extensions: { x: 1 },
        other: 1,
      }),
    ).toEqual(
      expect.arrayContaining([
        { pointer: '/other', message: 'unknown property "other" is not allowed here' },
        { pointer: '/kind', message: `must be one of ${ENVELOPE_KINDS.join(', ')}` },
        { pointer: '/extensions/x', message: 'property name "x" is not allowed here' },
      ]),
    );
  });

  it('requires an ErrorData payload on an error envelope', () => {
    const error = { ...REQUEST, kind: 'error', data: { code: 'TIMEOUT', message: 'late', retryable: true } };
    expect(validateEnvelope(error)).toEqual([]);
    expect(validateEnvelope({ ...error, data: { code: 'LATE', message: 'late' } })).toEqual([
      { pointer: '/data', message: 'missing required property "retryable"' },
      { pointer: '/data/code', message: expect.stringMatching(/^must be one of PARSE_ERROR, /) as string },
    ]);
  });

  it('rejects an all-zero trace id and a deadline before the timestamp', () => {
    expect(
      validateEnvelope({ ...REQUEST, traceparent: `00-${'0'.repeat(32)}-00f067aa0ba902b7-01` }),
    ).toHaveLength(1);
    expect(validateEnvelope({ ...REQUEST, deadline: '2025-12-15T11:29:59+01:00' })).toEqual([
      { pointer: '/deadline', message: 'must not be before the timestamp 2025-12-15T10:30:00Z' },
    ]);
  });

  it('parseEnvelope throws INVALID_REQUEST with details.problems', () => {
    expect(parseEnvelope(REQUEST)).toBe(REQUEST);
    const err = errorOf(() => parseEnvelope({ ...REQUEST, from: '' }));
    expect(err.code).toBe('INVALID_REQUEST');
    expect(err.details).toEqual({ problems: [{ pointer: '/from', message: 'must not be empty' }] });
  });
});
