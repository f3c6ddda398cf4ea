import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Envelope } from '../../../src/core/envelope.js';
import type { JsonObject } from '../../../src/core/json.js';
import { compareDateTimes } from '../../../src/core/records/datetime.js';
import { validateEnvelope } from '../../../src/core/records/envelope-schema.js';
import { createSchemaValidator } from '../../../src/core/schema-validator.js';
import {
  AGENTESE_ENVELOPE_SCHEMA,
  agenteseCodec,
  decodeAgentese,
  encodeAgentese,
  normalizeAgentese,
  validateAgentese,
} from '../../../src/wire/agentese/index.js';
import type { AgenteseCapability, AgenteseEnvelope } from '../../../src/wire/agentese/index.js';
import {
  errorOf,
  extensionsArb,
  idArb,
  isoDateArb,
  jsonArb,
  omit,
  signatureArb,
  traceparentArb,
  verbArb,
} from '../../core/records/helpers.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';
const CAPABILITY: AgenteseCapability = {
  issuer: 'did:key:z6MkIssuer',
  audience: 'did:key:z6MkAudience',
  scopes: ['soul:read'],
  resources: ['memory/crystals'],
  not_before: '2025-12-15T00:00:00Z',
  expires_at: '2025-12-16T00:00:00Z',
  caveats: [],
  proof: 'sig-chain',
  parent: null,
};
const CALL: AgenteseEnvelope = {
  verb: 'soul.memory.recall',
  version: 1,
  tenant_id: 'tenant_001',
  user_id: 'user_1',
  session_id: 'session_9',
  trace_id: TRACE,
  span_id: SPAN,
  parent_span_id: 'b7ad6b7169203331',
  capability: 'eyJhbGciOiJFZERTQSJ9.e30.c2ln',
  timestamp: '2025-12-15T10:30:00Z',
  deadline: '2025-12-15T10:30:30Z',
  target: 'local://soul',
  fallback_policy: 'local-llm → cloud → error',
  input: { query: 'last conversation' },
};

const hex = (n: number): fc.Arbitrary<string> =>
  fc.string({ unit: fc.constantFrom(...'0123456789abcdef'.split('')), minLength: n, maxLength: n });
const era = fc.oneof(fc.integer({ min: 1, max: 99 }), fc.constantFrom('2024-12', '2025-01'));
const plainExtensions = extensionsArb.map((e) =>
  Object.fromEntries(
    Object.entries(e).filter(([k]) => !k.startsWith('_x_agentese_') && !k.startsWith('_x_plexus_')),
  ),
);
const capabilityArb: fc.Arbitrary<string | AgenteseCapability> = fc.oneof(
  idArb,
  fc.constant(CAPABILITY),
  fc.constant({ ...CAPABILITY, parent: 'parent-token', caveats: [{ budget: 5 }] }),
);

/** AGENTESE envelopes in normal form. */
const wireArb: fc.Arbitrary<AgenteseEnvelope> = fc
  .tuple(
    fc.record(
      {
        verb: verbArb,
        version: era,
        tenant_id: idArb,
        user_id: idArb,
        session_id: idArb,
        parent_span_id: idArb,
        capability: capabilityArb,
        timestamp: isoDateArb,
        deadline: isoDateArb,
        target: fc.constantFrom('local://soul', 'town://citizen/alpha', 'p2p://did:key:z6Mk'),
        fallback_policy: fc.constantFrom('default', 'high-availability'),
        input: jsonArb,
      },
      { requiredKeys: ['verb', 'tenant_id', 'user_id', 'session_id', 'capability', 'timestamp', 'input'] },
    ),
    fc.oneof(
      fc.tuple(hex(32), hex(16)).filter(([t, s]) => !/^0+$/.test(t) && !/^0+$/.test(s)),
      fc.tuple(idArb, idArb),
    ),
    plainExtensions,
  )
  .map(([w, [trace_id, span_id], x]) => ({ ...x, ...w, trace_id, span_id }))
  .filter((w) => w.parent_span_id !== w.span_id)
  .filter((w) => typeof w.deadline !== 'string' || compareDateTimes(w.deadline, w.timestamp) > 0);

/** Core request envelopes AGENTESE carries. */
const coreArb: fc.Arbitrary<Envelope> = fc
  .tuple(
    fc.record(
      {
        id: idArb,
        kind: fc.constant('request' as const),
        from: idArb,
        to: idArb,
        verb: fc
          .tuple(verbArb, fc.option(era, { nil: undefined }))
          .map(([v, e]) => (e === undefined ? v : `${v}@${String(e)}`)),
        data: jsonArb,
        tenantId: idArb,
        userId: idArb,
        sessionId: idArb,
        traceparent: traceparentArb,
        timestamp: isoDateArb,
        deadline: isoDateArb,
        capability: idArb,
        correlationId: idArb,
        causationId: idArb,
        scopeId: idArb,
        schemaVersion: idArb,
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
          'tenantId',
          'userId',
          'sessionId',
          'traceparent',
          'timestamp',
          'capability',
        ],
      },
    ),
    fc.record(
      {
        _x_agentese_parent_span_id: idArb,
        _x_agentese_target: idArb,
        _x_agentese_fallback_policy: idArb,
      },
      { requiredKeys: [] },
    ),
    plainExtensions,
  )
  .filter(([e]) => e.deadline === undefined || compareDateTimes(e.deadline, e.timestamp) > 0)
  .filter(([e, a]) => a._x_agentese_parent_span_id !== e.traceparent.slice(36, 52))
  .map(([e, a, x]) => {
    const extensions: JsonObject = { ...x, ...a };
    return Object.keys(extensions).length === 0 ? e : { ...e, extensions };
  });

describe('AGENTESE envelope schema', () => {
  it('compiles under Ajv strict mode', () => {
    expect(() => createSchemaValidator({ strict: true }).compile(AGENTESE_ENVELOPE_SCHEMA)).not.toThrow();
  });
});

describe('decodeAgentese', () => {
  it('maps the §2.1 envelope onto a core request', () => {
    expect(decodeAgentese(CALL)).toEqual({
      id: SPAN,
      kind: 'request',
      from: 'user_1',
      to: 'capability:soul.memory.recall',
      verb: 'soul.memory.recall@1',
      data: { query: 'last conversation' },
      tenantId: 'tenant_001',
      userId: 'user_1',
      sessionId: 'session_9',
      traceparent: `00-${TRACE}-${SPAN}-01`,
      timestamp: '2025-12-15T10:30:00Z',
      deadline: '2025-12-15T10:30:30Z',
      capability: CALL.capability,
      extensions: {
        _x_agentese_parent_span_id: 'b7ad6b7169203331',
        _x_agentese_target: 'local://soul',
        _x_agentese_fallback_policy: 'local-llm → cloud → error',
      },
    });
    expect(validateEnvelope(decodeAgentese(CALL))).toEqual([]);
  });

  it("keeps non-W3C trace ids (the seed's abc123 / def456) and a capability object in extensions", () => {
    const env = decodeAgentese({ ...CALL, trace_id: 'abc123', span_id: 'def456', capability: CAPABILITY });
    expect(env.traceparent).toBeUndefined();
    expect(env.capability).toBeUndefined();
    expect(env.id).toBe('def456');
    expect(env.extensions).toMatchObject({
      _x_agentese_trace_id: 'abc123',
      _x_agentese_span_id: 'def456',
      _x_agentese_capability: CAPABILITY,
    });
  });

  it('takes the era from the verb, and accepts an equal version beside it', () => {
    const noVersion = omit(CALL, 'version');
    expect(decodeAgentese({ ...noVersion, verb: 'soul.memory.recall@2024-12' }).verb).toBe(
      'soul.memory.recall@2024-12',
    );
    expect(decodeAgentese({ ...CALL, verb: 'soul.memory.recall@1', version: 1 }).verb).toBe(
      'soul.memory.recall@1',
    );
    expect(decodeAgentese(noVersion).verb).toBe('soul.memory.recall');
  });

  it('rejects a version that differs from the verb’s own @version (D6)', () => {
    const err = errorOf(() => decodeAgentese({ ...CALL, verb: 'soul.memory.recall@2', version: 1 }));
    expect(err.code).toBe('INVALID_REQUEST');
    expect(err.details).toEqual({
      problems: [
        {
          pointer: '/version',
          message:
            'version 1 differs from the verb\'s own @2; the verb\'s version wins, so drop "version" or make them equal',
        },
      ],
    });
  });

  it('reports every missing field', () => {
    expect(validateAgentese({}).map((p) => p.message)).toEqual(
      AGENTESE_ENVELOPE_SCHEMA.required.map((f) => `missing required property "${f}"`),
    );
  });

  it('reports every bad field with its pointer', () => {
    const problems = validateAgentese({
      ...CALL,
      verb: 'soul.memory.recall.now',
      version: '1',
      tenant_id: '',
      timestamp: '2025-12-15T10:30:00',
      parent_span_id: SPAN,
      capability: { ...CAPABILITY, issuer: 'alice', expires_at: '2025-12-14T00:00:00Z' },
      user: 'x',
      _x_agentese_target: 'x',
      _x_plexus_colour: 'red',
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        { pointer: '/user', message: 'unknown property "user" is not allowed here' },
        {
          pointer: '/verb',
          message:
            'verb "soul.memory.recall.now" has 4 segments; at most three are allowed (namespace.resource.action)',
        },
        { pointer: '/version', message: 'the era "1" is a string; write the integer 1 without quotes' },
        { pointer: '/tenant_id', message: 'must not be empty' },
        {
          pointer: '/timestamp',
          message: 'must be an RFC 3339 date-time with a time zone (e.g. 2025-01-01T00:00:00Z)',
        },
        { pointer: '/capability/issuer', message: 'must match the pattern ^did:' },
        { pointer: '/capability', message: 'must match one of the allowed shapes' },
        { pointer: '/capability/expires_at', message: 'must be after not_before 2025-12-15T00:00:00Z' },
        { pointer: '/parent_span_id', message: 'must differ from span_id (a span is not its own parent)' },
        {
          pointer: '/_x_agentese_target',
          message: 'extension keys starting "_x_agentese_" are reserved for the AGENTESE codec',
        },
        {
          pointer: '/_x_plexus_colour',
          message: expect.stringMatching(
            /^"_x_plexus_colour" is not a field the AGENTESE codec carries/,
          ) as string,
        },
      ]),
    );
    expect(problems.filter((p) => p.pointer === '/version')).toHaveLength(1);
  });

  it('requires the deadline to be after the timestamp', () => {
    expect(validateAgentese({ ...CALL, deadline: CALL.timestamp })).toEqual([
      { pointer: '/deadline', message: 'must be after the timestamp 2025-12-15T10:30:00Z' },
    ]);
    expect(validateAgentese({ ...CALL, deadline: '2025-12-15T11:29:00+01:00' })).toHaveLength(1);
    expect(validateAgentese({ ...CALL, deadline: 'tomorrow' })).toEqual([
      {
        pointer: '/deadline',
        message: 'must be an RFC 3339 date-time with a time zone (e.g. 2025-01-01T00:00:00Z)',
      },
      { pointer: '/deadline', message: 'must be null' },
      { pointer: '/deadline', message: 'must match one of the allowed shapes' },
    ]);
  });

  it('rejects bad eras and verbs', () => {
    expect(validateAgentese({ ...CALL, version: 0 })).toEqual([
      { pointer: '/version', message: 'integer eras start at 1' },
    ]);
    expect(validateAgentese({ ...CALL, version: '2024-13' })).toEqual([
      { pointer: '/version', message: 'the month in era "2024-13" must be 01 to 12' },
    ]);
    expect(validateAgentese({ ...CALL, verb: 'Soul.memory' })).toHaveLength(1);
    expect(validateAgentese({ ...CALL, verb: 7 })).toEqual([
      { pointer: '/verb', message: 'must be a string' },
    ]);
    expect(errorOf(() => decodeAgentese('soul.memory.recall')).code).toBe('INVALID_REQUEST');
  });

  it('reads null optional fields as absent', () => {
    const withNulls = { ...CALL, parent_span_id: null, deadline: null, target: null };
    const env = decodeAgentese(withNulls);
    expect(env.deadline).toBeUndefined();
    expect(env.extensions).toEqual({ _x_agentese_fallback_policy: CALL.fallback_policy });
    expect(encodeAgentese(env)).toEqual(normalizeAgentese(withNulls));
  });
});

describe('encodeAgentese', () => {
  it('writes the era in version and carries core fields AGENTESE lacks in _x_plexus_ members', () => {
    const env: Envelope = {
      ...decodeAgentese(CALL),
      id: 'req-1',
      from: 'did:key:z6MkAgent',
      correlationId: 'thread-1',
      traceparent: `00-${TRACE}-${SPAN}-00`,
    };
    const wire = encodeAgentese(env);
    expect(wire).toEqual({
      ...CALL,
      _x_plexus_id: 'req-1',
      _x_plexus_from: 'did:key:z6MkAgent',
      _x_plexus_correlationId: 'thread-1',
      _x_plexus_traceparent: `00-${TRACE}-${SPAN}-00`,
    });
    expect(decodeAgentese(wire)).toEqual(env);
  });

  it('marks a derived traceparent the envelope did not have', () => {
    const env = decodeAgentese(CALL);
    const rest = omit(env, 'traceparent');
    const withRaw = {
      ...rest,
      extensions: { ...env.extensions, _x_agentese_trace_id: TRACE, _x_agentese_span_id: SPAN },
    };
    const wire = encodeAgentese(withRaw);
    expect(wire['_x_plexus_traceparent']).toBeNull();
    expect(decodeAgentese(wire).traceparent).toBeUndefined();
  });

  it('reports everything an envelope lacks for AGENTESE', () => {
    const err = errorOf(() =>
      encodeAgentese({
        id: 'x',
        kind: 'response',
        from: 'a',
        to: 'b',
        verb: 'HELP',
        data: null,
        extensions: { plain: 1, _x_agentese_colour: 2, _x_plexus_id: 'y' },
      }),
    );
    expect(err.code).toBe('INVALID_PARAMS');
    expect(err.details).toEqual({
      problems: [
        {
          pointer: '/kind',
          message: 'an AGENTESE envelope is an invocation; kind "response" has no AGENTESE form',
        },
        {
          pointer: '/verb',
          message: 'verb "HELP" has one segment; expected namespace.resource.action (or namespace.action)',
        },
        { pointer: '/tenantId', message: 'AGENTESE requires tenant_id; set envelope.tenantId' },
        { pointer: '/userId', message: 'AGENTESE requires user_id; set envelope.userId' },
        { pointer: '/sessionId', message: 'AGENTESE requires session_id; set envelope.sessionId' },
        {
          pointer: '/traceparent',
          message: 'AGENTESE requires trace_id and span_id; set a version-00 envelope.traceparent',
        },
        {
          pointer: '/capability',
          message: 'AGENTESE requires a capability; set envelope.capability (a UCAN token)',
        },
        { pointer: '/timestamp', message: 'AGENTESE requires timestamp; set envelope.timestamp' },
        { pointer: '/extensions/plain', message: 'extension key "plain" must start with "_x_"' },
        {
          pointer: '/extensions/_x_agentese_colour',
          message: '"_x_agentese_colour" is not an extension the AGENTESE codec knows',
        },
        {
          pointer: '/extensions/_x_plexus_id',
          message: '"_x_plexus_id" is reserved: the "_x_plexus_" prefix carries core fields',
        },
      ],
    });
  });

  it('rejects conflicting or malformed AGENTESE extensions', () => {
    const env = decodeAgentese(CALL);
    expect(
      errorOf(() =>
        encodeAgentese({
          ...env,
          extensions: { _x_agentese_capability: CAPABILITY as unknown as JsonObject },
        }),
      ).message,
    ).toMatch(/not both/);
    expect(errorOf(() => encodeAgentese({ ...env, extensions: { _x_agentese_target: 5 } })).details).toEqual({
      problems: [{ pointer: '/extensions/_x_agentese_target', message: 'must be a string' }],
    });
    expect(
      errorOf(() => encodeAgentese({ ...env, extensions: { _x_agentese_trace_id: 'abc' } })).message,
    ).toMatch(/go together/);
    const noToken = omit(env, 'capability');
    expect(
      errorOf(() => encodeAgentese({ ...noToken, extensions: { _x_agentese_capability: 'x' } })).message,
    ).toMatch(/must be a capability object/);
    expect(errorOf(() => encodeAgentese({ ...env, deadline: env.timestamp! })).message).toMatch(
      /must be after the timestamp/,
    );
  });
});

describe('AGENTESE round trips', () => {
  it('encode(decode(w)) equals w for every envelope in normal form (property)', () => {
    fc.assert(
      fc.property(wireArb, (w) => {
        expect(validateAgentese(w)).toEqual([]);
        const env = decodeAgentese(w);
        expect(validateEnvelope(env)).toEqual([]);
        expect(encodeAgentese(env)).toEqual(w);
      }),
      { numRuns: 300 },
    );
  });

  it('encode(decode(w)) equals normalizeAgentese(w) for the other spellings (property)', () => {
    const spelled = wireArb.chain((w) =>
      fc
        .record({ inVerb: fc.boolean(), keepVersion: fc.boolean(), nulls: fc.boolean() })
        .map(({ inVerb, keepVersion, nulls }) => {
          const out: Record<string, unknown> = { ...w };
          if (inVerb && w.version !== undefined) {
            out['verb'] = `${w.verb}@${String(w.version)}`;
            if (!keepVersion) delete out['version'];
          }
          if (nulls) for (const f of ['parent_span_id', 'deadline', 'target']) out[f] ??= null;
          return { w, spelled: out as unknown as AgenteseEnvelope };
        }),
    );
    fc.assert(
      fc.property(spelled, ({ w, spelled: s }) => {
        expect(normalizeAgentese(s)).toEqual(w);
        expect(encodeAgentese(decodeAgentese(s))).toEqual(w);
      }),
      { numRuns: 200 },
    );
  });

  it('decode(encode(e)) equals e for every core request AGENTESE carries (property)', () => {
    fc.assert(
      fc.property(coreArb, (e) => {
        expect(decodeAgentese(encodeAgentese(e))).toEqual(e);
      }),
      { numRuns: 300 },
    );
  });

  it('survives JSON text (property)', () => {
    fc.assert(
      fc.property(wireArb, (w) => {
        expect(decodeAgentese(JSON.parse(JSON.stringify(w)))).toEqual(decodeAgentese(w));
      }),
    );
  });
});

describe('agenteseCodec', () => {
  it('is a WireCodec for the agentese format', () => {
    expect(agenteseCodec.format).toBe('agentese');
    expect(agenteseCodec.validate(CALL)).toEqual([]);
    expect(agenteseCodec.encode(agenteseCodec.decode(CALL))).toEqual(CALL);
  });
});
