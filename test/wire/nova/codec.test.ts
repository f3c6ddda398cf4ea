import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Envelope } from '../../../src/core/envelope.js';
import type { JsonObject } from '../../../src/core/json.js';
import { compareDateTimes } from '../../../src/core/records/datetime.js';
import { validateEnvelope } from '../../../src/core/records/envelope-schema.js';
import { createSchemaValidator } from '../../../src/core/schema-validator.js';
import {
  NOVA_ENVELOPE_SCHEMA,
  NOVA_MESSAGE_TYPES,
  NOVA_METADATA_CORE_KEYS,
  createNovaCodec,
  decodeNova,
  deserializeNova,
  encodeNova,
  novaCodec,
  serializeNova,
  validateNova,
} from '../../../src/wire/nova/index.js';
import type { NovaEnvelope } from '../../../src/wire/nova/index.js';
import {
  errorDataArb,
  errorOf,
  extensionsArb,
  idArb,
  isoDateArb,
  jsonArb,
  omit,
  signatureArb,
  traceparentArb,
} from '../../core/records/helpers.js';

const REQUEST: NovaEnvelope = {
  schemaVersion: '1.0',
  id: '7d444840-9dc0-11d1-b245-5ffdce74fad2',
  type: 'task-proposal',
  from: 'MARS',
  to: 'capability:code.review.run',
  correlationId: '7d444840-9dc0-11d1-b245-5ffdce74fad2',
  timestamp: '2025-01-01T00:00:00.000Z',
  payload: {
    task: 'review PR 7',
    requiredCapabilities: ['code.review.run'],
    escalationJustification: 'blocking',
  },
  verb: 'code.review.run',
  metadata: {
    tenantId: 'nova26',
    traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    hops: 2,
  },
  _x_priority: 'high',
};

const safeExtensions = extensionsArb.map((e) =>
  Object.fromEntries(Object.entries(e).filter(([k]) => !k.startsWith('_x_nova_'))),
);
const agentId = idArb.filter((s) => s !== 'broadcast' && s !== '*');
const coreKeys = NOVA_METADATA_CORE_KEYS as readonly string[];

const metadataArb: fc.Arbitrary<JsonObject> = fc
  .tuple(
    fc.record(
      {
        causationId: idArb,
        scopeId: idArb,
        sessionId: idArb,
        tenantId: idArb,
        userId: idArb,
        traceparent: traceparentArb,
        deadline: isoDateArb,
        capability: idArb,
        signature: signatureArb,
      },
      { requiredKeys: [] },
    ),
    fc.dictionary(
      fc.string({ maxLength: 8 }).filter((k) => !coreKeys.includes(k)),
      jsonArb,
      { maxKeys: 3 },
    ),
  )
  .map(([core, other]) => ({ ...other, ...core }) as JsonObject);

/** Valid Nova envelopes, optional parts present or not. */
const novaArb: fc.Arbitrary<NovaEnvelope> = fc
  .tuple(
    fc.record(
      {
        schemaVersion: fc.constant('1.0'),
        id: idArb,
        type: fc.constantFrom(...NOVA_MESSAGE_TYPES),
        from: agentId,
        to: fc.oneof(idArb, fc.constantFrom('broadcast', '*', 'capability:a.b.c')),
        correlationId: idArb,
        timestamp: fc.oneof(
          isoDateArb,
          fc.constantFrom('2025-01-01T00:00:00+02:00', '2025-01-01t00:00:00.123456z'),
        ),
        payload: jsonArb,
        verb: idArb,
        metadata: metadataArb,
      },
      {
        requiredKeys: ['schemaVersion', 'id', 'type', 'from', 'to', 'correlationId', 'timestamp', 'payload'],
      },
    ),
    safeExtensions,
  )
  .filter(([w]) => !(w.to.startsWith('capability:') && w.to.length === 'capability:'.length))
  .filter(([w]) => {
    const deadline = w.metadata?.['deadline'];
    return typeof deadline !== 'string' || compareDateTimes(deadline, w.timestamp) >= 0;
  })
  .chain(([w, x]) =>
    (w.type === 'error' ? errorDataArb : fc.constant(w.payload)).map((payload) => ({ ...x, ...w, payload })),
  );

/** Core envelopes that Nova carries exactly (every field Nova requires is present). */
const coreArb: fc.Arbitrary<Envelope> = fc
  .tuple(
    fc.record(
      {
        id: idArb,
        kind: fc.constantFrom(...NOVA_MESSAGE_TYPES),
        from: agentId,
        to: idArb.filter((s) => s !== '*'),
        verb: fc.oneof(fc.constant(''), idArb),
        data: jsonArb,
        correlationId: idArb,
        timestamp: isoDateArb,
        schemaVersion: fc.constant('1.0'),
        causationId: idArb,
        scopeId: idArb,
        sessionId: idArb,
        tenantId: idArb,
        userId: idArb,
        traceparent: traceparentArb,
        deadline: isoDateArb,
        capability: idArb,
        signature: signatureArb,
      },
      {
        requiredKeys: [
          'id',
          'kind',
          'from',
          'to',
          'verb',
          'data',
          'correlationId',
          'timestamp',
          'schemaVersion',
        ],
      },
    ),
    safeExtensions,
  )
  .filter(([e]) => e.deadline === undefined || compareDateTimes(e.deadline, e.timestamp) >= 0)
  .chain(([e, x]) =>
    (e.kind === 'error' ? errorDataArb : fc.constant(e.data)).map(
      (data) => (Object.keys(x).length === 0 ? { ...e, data } : { ...e, data, extensions: x }) as Envelope,
    ),
  );

describe('Nova envelope schema', () => {
  it('compiles under Ajv strict mode', () => {
    expect(() => createSchemaValidator({ strict: true }).compile(NOVA_ENVELOPE_SCHEMA)).not.toThrow();
  });
});

describe('decodeNova', () => {
  it('maps every field onto the core envelope', () => {
    expect(decodeNova(REQUEST)).toEqual({
      id: REQUEST.id,
      kind: 'task-proposal',
      from: 'MARS',
      to: 'capability:code.review.run',
      verb: 'code.review.run',
      data: REQUEST.payload,
      correlationId: REQUEST.id,
      timestamp: '2025-01-01T00:00:00.000Z',
      schemaVersion: '1.0',
      tenantId: 'nova26',
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      extensions: { _x_nova_metadata: { hops: 2 }, _x_priority: 'high' },
    });
  });

  it('reads "*" as broadcast and writes it back as "*"', () => {
    const star = { ...REQUEST, to: '*' };
    const env = decodeNova(star);
    expect(env.to).toBe('broadcast');
    expect(encodeNova(env)).toEqual(star);
    expect(encodeNova({ ...env, extensions: {} }).to).toBe('broadcast');
  });

  it('decodes every message type', () => {
    const errorData = { code: 'TIMEOUT', message: 'too slow', retryable: true };
    for (const type of NOVA_MESSAGE_TYPES) {
      expect(
        decodeNova({ ...REQUEST, type, payload: type === 'error' ? errorData : REQUEST.payload }).kind,
      ).toBe(type);
    }
  });

  it('requires an error payload to be the core ErrorData', () => {
    expect(validateNova({ ...REQUEST, type: 'error', payload: { code: 'E2001', message: 'quota' } })).toEqual(
      [
        { pointer: '/payload', message: 'missing required property "retryable"' },
        {
          pointer: '/payload/code',
          message: expect.stringMatching(/^must be one of PARSE_ERROR, /) as string,
        },
      ],
    );
  });

  it('gives VERSION_MISMATCH naming the version found and the ones supported (Req. 13.7)', () => {
    const err = errorOf(() => decodeNova({ ...REQUEST, schemaVersion: '2.0', type: 'handshake' }));
    expect(err.code).toBe('VERSION_MISMATCH');
    expect(err.message).toBe('Nova envelope schemaVersion "2.0" is not supported; supported: 1.0');
    expect(err.details).toMatchObject({ found: '2.0', supported: ['1.0'] });
    expect(validateNova({ ...REQUEST, schemaVersion: '0.9' })).toEqual([
      { pointer: '/schemaVersion', message: 'schema version "0.9" is not supported; this node reads 1.0' },
    ]);
  });

  it('rejects a missing or non-string schemaVersion as a malformed envelope', () => {
    const noVersion = omit(REQUEST, 'schemaVersion');
    expect(errorOf(() => decodeNova(noVersion)).code).toBe('INVALID_REQUEST');
    expect(validateNova({ ...REQUEST, schemaVersion: 1 })).toEqual([
      { pointer: '/schemaVersion', message: 'must be a string' },
    ]);
  });

  it('reports every problem with its pointer', () => {
    expect(validateNova({}).map((p) => p.message)).toEqual(
      NOVA_ENVELOPE_SCHEMA.required.map((f) => `missing required property "${f}"`),
    );
    const problems = validateNova({
      ...REQUEST,
      type: 'handshake',
      from: 'broadcast',
      timestamp: '2025-01-01 00:00',
      verb: '',
      metadata: { traceparent: 'abc', deadline: 5 },
      _x_nova_to: '*',
    });
    expect(problems).toEqual([
      { pointer: '/type', message: `must be one of ${NOVA_MESSAGE_TYPES.join(', ')}` },
      {
        pointer: '/from',
        message: '"broadcast" addresses every agent; "from" must be the sender\'s agent id',
      },
      {
        pointer: '/timestamp',
        message: 'must be an RFC 3339 date-time with a time zone (e.g. 2025-01-01T00:00:00Z)',
      },
      { pointer: '/verb', message: 'must not be empty' },
      {
        pointer: '/metadata/traceparent',
        message: expect.stringMatching(/^must match the pattern/) as string,
      },
      { pointer: '/metadata/deadline', message: 'must be a string' },
      {
        pointer: '/_x_nova_to',
        message: 'extension keys starting "_x_nova_" are reserved for the Nova codec',
      },
    ]);
    expect(
      validateNova({
        ...REQUEST,
        to: 'capability:',
        metadata: { deadline: '2024-12-31T23:59:59Z' },
        channel: 'x',
      }),
    ).toEqual([
      { pointer: '/channel', message: 'unknown property "channel" is not allowed here' },
      { pointer: '/to', message: 'a capability selector must name a verb after "capability:"' },
      { pointer: '/metadata/deadline', message: 'must not be before the timestamp 2025-01-01T00:00:00.000Z' },
    ]);
    const err = errorOf(() => decodeNova({ ...REQUEST, from: '*' }));
    expect(err.code).toBe('INVALID_REQUEST');
    expect(err.details).toEqual({
      problems: [
        { pointer: '/from', message: '"*" addresses every agent; "from" must be the sender\'s agent id' },
      ],
    });
  });

  it('rejects what is not an object', () => {
    expect(validateNova('hello')).toEqual([{ pointer: '', message: 'must be an object' }]);
    expect(errorOf(() => decodeNova(null)).code).toBe('INVALID_REQUEST');
  });
});

describe('encodeNova', () => {
  it('fills timestamp, correlationId and schemaVersion when the envelope lacks them', () => {
    const wire = encodeNova(
      {
        id: 'm1',
        kind: 'notification',
        from: 'a',
        to: 'broadcast',
        verb: '',
        data: null,
        schemaVersion: '7',
      },
      { clock: () => new Date('2025-02-03T04:05:06.007Z') },
    );
    expect(wire).toEqual({
      schemaVersion: '1.0',
      id: 'm1',
      type: 'notification',
      from: 'a',
      to: 'broadcast',
      correlationId: 'm1',
      timestamp: '2025-02-03T04:05:06.007Z',
      payload: null,
    });
  });

  it('rejects kinds and extensions Nova cannot carry', () => {
    const base: Envelope = {
      id: 'm',
      kind: 'hello',
      from: 'a',
      to: 'b',
      verb: '',
      data: null,
      timestamp: '2025-01-01T00:00:00Z',
    };
    const err = errorOf(() => encodeNova(base));
    expect(err.code).toBe('INVALID_PARAMS');
    expect(err.message).toMatch(/kind "hello" has no Nova form/);
    const bad = errorOf(() =>
      encodeNova({
        ...base,
        kind: 'request',
        extensions: { plain: 1, _x_nova_other: 2, _x_nova_metadata: { tenantId: 'x' } },
      }),
    );
    expect(bad.details).toEqual({
      problems: [
        {
          pointer: '/extensions/_x_nova_metadata/tenantId',
          message: '"tenantId" is a core envelope field; set envelope.tenantId instead',
        },
        { pointer: '/extensions/plain', message: 'extension key "plain" must start with "_x_"' },
        {
          pointer: '/extensions/_x_nova_other',
          message:
            '"_x_nova_other" is not an extension the Nova codec knows (the "_x_nova_" prefix is reserved)',
        },
      ],
    });
    expect(
      errorOf(() => encodeNova({ ...base, kind: 'request', extensions: { _x_nova_metadata: 3 } })).code,
    ).toBe('INVALID_PARAMS');
    expect(errorOf(() => encodeNova({ ...base, kind: 'request', from: 'broadcast' })).code).toBe(
      'INVALID_PARAMS',
    );
  });

  it('keeps an empty metadata object', () => {
    const wire = { ...REQUEST, metadata: {} };
    expect(decodeNova(wire).extensions).toMatchObject({ _x_nova_metadata: {} });
    expect(encodeNova(decodeNova(wire))).toEqual(wire);
  });
});

describe('Nova round trips (Req. 2.3, 13.3)', () => {
  it('encode(decode(w)) equals w for every valid Nova envelope (property)', () => {
    fc.assert(
      fc.property(novaArb, (w) => {
        expect(validateNova(w)).toEqual([]);
        const env = decodeNova(w);
        expect(validateEnvelope(env)).toEqual([]);
        expect(encodeNova(env)).toEqual(w);
      }),
      { numRuns: 300 },
    );
  });

  it('decode(encode(e)) equals e for every envelope Nova carries (property)', () => {
    fc.assert(
      fc.property(coreArb, (e) => {
        expect(decodeNova(encodeNova(e))).toEqual(e);
      }),
      { numRuns: 300 },
    );
  });

  it('JSON text round-trips exactly (property)', () => {
    fc.assert(
      fc.property(novaArb, (w) => {
        expect(deserializeNova(serializeNova(w))).toEqual(w);
      }),
    );
  });

  it('deserializeNova reports non-JSON and version mismatches', () => {
    expect(errorOf(() => deserializeNova('{')).code).toBe('PARSE_ERROR');
    expect(errorOf(() => deserializeNova(JSON.stringify({ ...REQUEST, schemaVersion: '3' }))).code).toBe(
      'VERSION_MISMATCH',
    );
    expect(errorOf(() => serializeNova({ ...REQUEST, id: '' })).code).toBe('INVALID_REQUEST');
  });
});

describe('createNovaCodec', () => {
  it('is a WireCodec for the nova format using the injected clock', () => {
    const codec = createNovaCodec({ clock: () => new Date(0) });
    expect(codec.format).toBe('nova');
    expect(codec.validate(REQUEST)).toEqual([]);
    expect(
      codec.encode({ id: 'x', kind: 'request', from: 'a', to: 'b', verb: 'a.b', data: 1 }).timestamp,
    ).toBe('1970-01-01T00:00:00.000Z');
    expect(novaCodec.decode(REQUEST)).toEqual(decodeNova(REQUEST));
  });
});
