import { describe, expect, it } from 'vitest';
import type { Envelope } from '../../../src/core/envelope.js';
import { PlexusError } from '../../../src/core/errors.js';
import type { Problem } from '../../../src/core/problem.js';
import {
  PLEXUS_ERROR_EXTENSION,
  createEmergenceCodec,
  decodeEmergence,
  emergenceCodec,
  emergenceErrorToPlexus,
  encodeEmergence,
} from '../../../src/wire/emergence/index.js';

const ID = '550e8400-e29b-41d4-a716-446655440000';
const base = { id: ID, from: 'agent_b', to: 'agent_a' };

function thrown(fn: () => unknown): PlexusError {
  try {
    fn();
  } catch (e) {
    if (e instanceof PlexusError) return e;
    throw e;
  }
  throw new Error('did not throw');
}

describe('emergenceCodec', () => {
  it('speaks the emergence format', () => {
    expect(emergenceCodec.format).toBe('emergence');
    expect(emergenceCodec.validate({})).toHaveLength(5);
  });

  it.each([
    ['HELLO', 'hello', { capabilities: ['translate'] }],
    ['HELP', 'request', { prompt: 'x' }],
    ['DONE', 'response', { result: 'y' }],
    ['ERROR', 'error', { code: 501, msg: 'no such verb' }],
    ['STREAM', 'request', {}],
  ] as const)('decodes %s as kind %s and back', (verb, kind, data) => {
    const wire = { ...base, verb, data };
    const env = decodeEmergence(wire);
    expect(env).toEqual({ ...base, kind, verb, data });
    expect(encodeEmergence(env)).toEqual(wire);
  });

  it('puts _x_ keys in extensions and writes them back', () => {
    const wire = { ...base, verb: 'DONE', data: { result: 1 }, _x_usage_tokens: 42, _x_cost_usd: '0.01' };
    const env = decodeEmergence(wire);
    expect(env.extensions).toEqual({ _x_usage_tokens: 42, _x_cost_usd: '0.01' });
    expect(env).not.toHaveProperty('_x_usage_tokens');
    expect(emergenceCodec.encode(env)).toEqual(wire);
  });

  it('leaves extensions out when there are none', () => {
    expect(decodeEmergence({ ...base, verb: 'HELP', data: {} })).not.toHaveProperty('extensions');
  });

  it('takes the wire verb of answers from the kind (an answer may carry its request verb)', () => {
    const env: Envelope = { ...base, kind: 'response', verb: 'HELP', data: { result: 'ok' } };
    expect(encodeEmergence(env).verb).toBe('DONE');
    expect(encodeEmergence({ ...env, kind: 'hello', data: {} }).verb).toBe('HELLO');
  });

  it('encodes an ErrorData as ERROR with the Emergence integer and the _x_plexus_error extension', () => {
    const env: Envelope = {
      ...base,
      kind: 'error',
      verb: 'HELP',
      data: {
        code: 'UNKNOWN_VERB',
        message: 'nobody offers FLY',
        retryable: false,
        details: { verb: 'FLY' },
      },
    };
    const wire = encodeEmergence(env);
    expect(wire).toEqual({
      ...base,
      verb: 'ERROR',
      data: { code: 501, msg: 'nobody offers FLY' },
      [PLEXUS_ERROR_EXTENSION]: { code: 'UNKNOWN_VERB', retryable: false, details: { verb: 'FLY' } },
    });
    const back = emergenceErrorToPlexus(decodeEmergence(wire));
    expect(back.toData()).toEqual(env.data);
  });

  it('uses ERROR_TABLE emergence codes (RATE_LIMITED → 429, INTERNAL → 500)', () => {
    const wire = (code: string): unknown =>
      encodeEmergence({
        ...base,
        kind: 'error',
        verb: 'ERROR',
        data: { code, message: 'm', retryable: true },
      }).data.code;
    expect(wire('RATE_LIMITED')).toBe(429);
    expect(wire('INTERNAL')).toBe(500);
  });

  it('rejects an ErrorData with an unknown code', () => {
    const err = thrown(() =>
      encodeEmergence({
        ...base,
        kind: 'error',
        verb: 'ERROR',
        data: { code: 'NOPE', message: 'm', retryable: false },
      }),
    );
    expect(err.code).toBe('INVALID_PARAMS');
    expect((err.details?.problems as unknown as Problem[]).map((p) => p.pointer)).toEqual(['/data/code']);
  });

  it.each(['notification', 'task-proposal', 'stream-data'] as const)('cannot encode kind %s', (kind) => {
    const err = thrown(() => encodeEmergence({ ...base, kind, verb: 'HELP', data: {} }));
    expect(err.code).toBe('INVALID_PARAMS');
    expect((err.details?.problems as unknown as Problem[])[0]?.pointer).toBe('/kind');
  });

  it.each(['HELLO', 'DONE', 'ERROR'])('cannot encode a request with the verb %s', (verb) => {
    expect(thrown(() => encodeEmergence({ ...base, kind: 'request', verb, data: {} })).code).toBe(
      'INVALID_PARAMS',
    );
  });

  it('rejects a request verb that is not ALL-CAPS (e.g. an AGENTESE verb)', () => {
    const err = thrown(() => encodeEmergence({ ...base, kind: 'request', verb: 'text.translate', data: {} }));
    expect((err.details?.problems as unknown as Problem[]).map((p) => p.pointer)).toEqual(['/verb']);
  });

  it('rejects an envelope that breaks the wire rules, reporting all problems', () => {
    const err = thrown(() =>
      encodeEmergence({ id: 'x', kind: 'response', from: 'broadcast', to: 'a', verb: 'DONE', data: {} }),
    );
    expect((err.details?.problems as unknown as Problem[]).map((p) => p.pointer).sort()).toEqual([
      '/data/result',
      '/from',
      '/id',
    ]);
  });

  it('rejects an extension key without _x_', () => {
    const err = thrown(() =>
      encodeEmergence({ ...base, kind: 'request', verb: 'HELP', data: {}, extensions: { usage: 1 } }),
    );
    expect((err.details?.problems as unknown as Problem[]).map((p) => p.pointer)).toEqual([
      '/extensions/usage',
    ]);
  });

  it('rejects fields Emergence cannot carry, or drops them when asked', () => {
    const env: Envelope = {
      ...base,
      kind: 'request',
      verb: 'HELP',
      data: {},
      traceparent: 'tp',
      tenantId: 't',
    };
    const err = thrown(() => encodeEmergence(env));
    expect((err.details?.problems as unknown as Problem[]).map((p) => p.pointer).sort()).toEqual([
      '/tenantId',
      '/traceparent',
    ]);
    expect(createEmergenceCodec({ unsupportedFields: 'drop' }).encode(env)).toEqual({
      ...base,
      verb: 'HELP',
      data: {},
    });
  });
});

describe('emergenceErrorToPlexus', () => {
  const error = (data: Record<string, unknown>, extensions?: Record<string, unknown>): Envelope =>
    decodeEmergence({ ...base, verb: 'ERROR', data, ...extensions });

  it.each([
    [429, 'RATE_LIMITED', true],
    [501, 'UNKNOWN_VERB', false],
    [503, 'UNAVAILABLE', true],
    [404, 'NOT_FOUND', false],
    [418, 'INVALID_REQUEST', false],
    [599, 'INTERNAL', false],
  ] as const)('reads code %i as %s', (code, plexus, retryable) => {
    const err = emergenceErrorToPlexus(error({ code, msg: 'm' }));
    expect(err.code).toBe(plexus);
    expect(err.retryable).toBe(retryable);
    expect(err.details).toEqual({ emergenceCode: code });
  });

  it('prefers a well-formed _x_plexus_error', () => {
    const err = emergenceErrorToPlexus(
      error(
        { code: 401, msg: 'bad sig' },
        { _x_plexus_error: { code: 'SIGNATURE_INVALID', retryable: false } },
      ),
    );
    expect(err.code).toBe('SIGNATURE_INVALID');
    expect(err.message).toBe('bad sig');
  });

  it('ignores a malformed _x_plexus_error', () => {
    expect(
      emergenceErrorToPlexus(error({ code: 401, msg: 'm' }, { _x_plexus_error: { code: 'BOGUS' } })).code,
    ).toBe('UNAUTHORIZED');
  });

  it('reads a local ErrorData envelope with fromData', () => {
    const env: Envelope = {
      ...base,
      kind: 'error',
      verb: 'ERROR',
      data: { code: 'TIMEOUT', message: 'slow', retryable: true },
    };
    expect(emergenceErrorToPlexus(env).code).toBe('TIMEOUT');
  });

  it('throws INVALID_PARAMS for a non-error envelope or bad data', () => {
    expect(
      thrown(() => emergenceErrorToPlexus(decodeEmergence({ ...base, verb: 'HELP', data: {} }))).code,
    ).toBe('INVALID_PARAMS');
    expect(
      thrown(() =>
        emergenceErrorToPlexus({ ...base, kind: 'error', verb: 'ERROR', data: { code: 1.5, msg: 'x' } }),
      ).code,
    ).toBe('INVALID_PARAMS');
  });
});
