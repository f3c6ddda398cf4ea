import { describe, expect, it } from 'vitest';
import { parseJsonLossless } from '../../../src/core/canonical/lossless.js';
import type { Envelope } from '../../../src/core/envelope.js';
import { PlexusError } from '../../../src/core/errors.js';
import { esrpRequestCodec, esrpResponseCodec } from '../../../src/wire/esrp/index.js';
import { ESRP_ERRORS } from '../../../src/wire/esrp/error-table.js';

const request = (): Record<string, unknown> => ({
  esrp_version: '1.0',
  request_id: '550e8400-e29b-41d4-a716-446655440000',
  timestamp: '2025-01-01T00:00:00Z',
  caller: { system: 'erasmus' },
  target: { service: 'tts', operation: 'synthesize' },
  inputs: [{ name: 'text', content_type: 'text/plain', data: 'Hello', encoding: 'utf-8' }],
});

function thrown(fn: () => unknown): PlexusError {
  try {
    fn();
  } catch (error) {
    if (error instanceof PlexusError) return error;
    throw error;
  }
  throw new Error('expected a PlexusError');
}

const pointersOf = (error: PlexusError): string[] =>
  ((error.details?.['problems'] ?? []) as { pointer: string }[]).map((p) => p.pointer);

describe('esrpRequestCodec.validate', () => {
  it('has the esrp-request format', () => {
    expect(esrpRequestCodec.format).toBe('esrp-request');
    expect(esrpResponseCodec.format).toBe('esrp-response');
  });

  it.each([
    ['esrp_version', { esrp_version: '2.0' }, '/esrp_version'],
    ['request_id', { request_id: 'abc' }, '/request_id'],
    ['timestamp', { timestamp: '01/01/2025' }, '/timestamp'],
    ['inputs empty', { inputs: [] }, '/inputs'],
    ['inputs not array', { inputs: {} }, '/inputs'],
    [
      'encoding',
      { inputs: [{ name: 'a', content_type: 'text/plain', data: 'x', encoding: 'utf8' }] },
      '/inputs/0/encoding',
    ],
    [
      'input name',
      { inputs: [{ content_type: 'text/plain', data: 'x', encoding: 'utf-8' }] },
      '/inputs/0/name',
    ],
    [
      'workspace traversal',
      { inputs: [{ name: 'a', content_type: 'a/b', data: 'workspace://a/../b', encoding: 'path' }] },
      '/inputs/0/data',
    ],
    ['mode type', { mode: { type: 'batch' } }, '/mode/type'],
    ['mode timeout', { mode: { type: 'sync', timeout_ms: 0 } }, '/mode/timeout_ms'],
    ['mode timeout fraction', { mode: { type: 'sync', timeout_ms: 1.5 } }, '/mode/timeout_ms'],
    ['scope_id', { scope_id: 'scope-1' }, '/scope_id'],
    ['float params', { params: { temperature: 0.7 } }, '/params/temperature'],
    ['context', { context: { trace_id: '770e8400-e29b-41d4-a716-446655440000' } }, '/context/span_id'],
  ])('reports a bad %s at its pointer', (_what, change, pointer) => {
    const problems = esrpRequestCodec.validate({ ...request(), ...change });
    expect(problems.map((p) => p.pointer)).toEqual([pointer]);
    expect(problems[0]?.message.length).toBeGreaterThan(10);
  });

  it('reports every problem at once', () => {
    const problems = esrpRequestCodec.validate({
      ...request(),
      esrp_version: '0.9',
      request_id: 1,
      inputs: [],
    });
    expect(problems.map((p) => p.pointer)).toEqual(['/request_id', '/esrp_version', '/inputs']);
  });

  it('refuses integers beyond 2^53, which an envelope cannot carry', () => {
    const text = JSON.stringify(request()).replace(/}$/, ',"params":{"big":123456789012345678901}}');
    expect(esrpRequestCodec.validate(parseJsonLossless(text)).map((p) => p.pointer)).toEqual(['/params/big']);
  });
});

describe('esrpRequestCodec.decode', () => {
  it('throws INVALID_PARAMS with every problem in details.problems', () => {
    const error = thrown(() => esrpRequestCodec.decode({ ...request(), inputs: [], timestamp: 'x' }));
    expect(error.code).toBe('INVALID_PARAMS');
    expect(ESRP_ERRORS[error.code]).toBe('INVALID_INPUT_SCHEMA');
    expect(pointersOf(error)).toEqual(['/timestamp', '/inputs']);
    expect(error.message).toContain('/inputs');
  });

  it('throws VERSION_MISMATCH for a 2.x request', () => {
    const error = thrown(() => esrpRequestCodec.decode({ ...request(), esrp_version: '2.0' }));
    expect(error.code).toBe('VERSION_MISMATCH');
    expect(pointersOf(error)).toEqual(['/esrp_version']);
  });

  it('throws for a document that is not an object', () => {
    expect(pointersOf(thrown(() => esrpRequestCodec.decode('hello')))).toEqual(['']);
  });

  it('decodes the defaults into extensions and data', () => {
    const envelope = esrpRequestCodec.decode(request());
    expect(envelope).toEqual({
      id: '550e8400-e29b-41d4-a716-446655440000',
      kind: 'request',
      from: 'erasmus',
      to: 'tts',
      verb: 'tts.synthesize',
      data: {
        inputs: [
          { name: 'text', content_type: 'text/plain', data: 'Hello', encoding: 'utf-8', metadata: null },
        ],
        params: null,
      },
      timestamp: '2025-01-01T00:00:00Z',
      schemaVersion: '1.0',
      extensions: {
        _x_esrp_caller: { system: 'erasmus' },
        _x_esrp_target: { service: 'tts', operation: 'synthesize' },
        _x_esrp_mode: { type: 'sync', timeout_ms: 600000 },
      },
    });
  });
});

describe('esrpRequestCodec.encode', () => {
  const plain: Envelope = {
    id: '6F1C2A4E-8B7D-4C3E-9A2F-1D5E7B9C0A3F',
    kind: 'request',
    from: 'agent-7',
    to: 'tts',
    verb: 'tts.synthesize@1',
    data: {
      inputs: [{ name: 'text', content_type: 'text/plain', data: 'Hi', encoding: 'utf-8' }],
      params: { voice: 'a' },
    },
    timestamp: '2025-06-01T12:00:00.000Z',
    deadline: '2025-06-01T12:00:30.000Z',
    traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    scopeId: '660e8400-e29b-41d4-a716-446655440000',
    tenantId: 'acme',
  };

  it('writes an envelope from another face as an ESRP request', () => {
    expect(esrpRequestCodec.encode(plain)).toEqual({
      esrp_version: '1.0',
      request_id: '6f1c2a4e-8b7d-4c3e-9a2f-1d5e7b9c0a3f',
      timestamp: '2025-06-01T12:00:00Z',
      scope_id: '660e8400-e29b-41d4-a716-446655440000',
      caller: { system: 'plexus', agent_id: 'agent-7' },
      target: { service: 'tts', operation: 'synthesize' },
      mode: { type: 'sync', timeout_ms: 30000 },
      context: {
        trace_id: '4bf92f35-77b3-4da6-a3ce-929d0e0e4736',
        span_id: '00f067aa-0ba9-02b7-0000-000000000000',
        tags: null,
      },
      inputs: [{ name: 'text', content_type: 'text/plain', data: 'Hi', encoding: 'utf-8', metadata: null }],
      params: { voice: 'a' },
    });
    const back = esrpRequestCodec.decode(esrpRequestCodec.encode(plain));
    expect(back.traceparent).toBe(plain.traceparent);
    expect(back.from).toBe('agent-7');
  });

  it('refuses what ESRP cannot express', () => {
    expect(thrown(() => esrpRequestCodec.encode({ ...plain, kind: 'notification' })).code).toBe(
      'INVALID_PARAMS',
    );
    expect(thrown(() => esrpRequestCodec.encode({ ...plain, id: 'msg-1' })).message).toContain('UUID');
    const noTime: Envelope = { ...plain };
    delete (noTime as { timestamp?: string }).timestamp;
    expect(thrown(() => esrpRequestCodec.encode(noTime)).message).toContain('timestamp');
    expect(thrown(() => esrpRequestCodec.encode({ ...plain, verb: 'synthesize' })).message).toContain(
      'service.operation',
    );
    expect(thrown(() => esrpRequestCodec.encode({ ...plain, data: 'hi' })).message).toContain('inputs');
    expect(thrown(() => esrpRequestCodec.encode({ ...plain, scopeId: 'project-x' })).message).toContain(
      'scopeId',
    );
    const badInput = thrown(() => esrpRequestCodec.encode({ ...plain, data: { inputs: [{ name: 'x' }] } }));
    expect(pointersOf(badInput)).toContain('/inputs/0/content_type');
  });

  it('writes from into the caller when it changed after decoding', () => {
    const envelope = esrpRequestCodec.decode({ ...request(), caller: { system: 'erasmus', run_id: 'r1' } });
    const wire = esrpRequestCodec.encode({ ...envelope, from: 'someone-else' });
    expect(wire['caller']).toEqual({ system: 'erasmus', run_id: 'r1', agent_id: 'someone-else' });
  });
});

describe('esrpResponseCodec', () => {
  const failed = (): Record<string, unknown> => ({
    esrp_version: '1.0',
    request_id: '550e8400-e29b-41d4-a716-446655440000',
    status: 'failed',
    outputs: [],
    artifacts: [],
    error: { code: 'OOM', message: 'out of memory', retryable: true },
  });

  it('reports response problems at their pointers and throws on decode', () => {
    const bad = { ...failed(), status: 'failed', error: { code: 'OOM', message: 'x', retryable: false } };
    expect(esrpResponseCodec.validate(bad).map((p) => p.pointer)).toEqual(['/error/retryable']);
    const error = thrown(() => esrpResponseCodec.decode({ ...failed(), error: undefined, request_id: 'x' }));
    expect(error.code).toBe('INVALID_PARAMS');
    expect(pointersOf(error)).toEqual(['/request_id', '/error']);
  });

  it.each([
    ['BACKEND_UNAVAILABLE', 'PEER_UNAVAILABLE'],
    ['TIMEOUT', 'TIMEOUT'],
    ['OOM', 'OUT_OF_MEMORY'],
    ['INVALID_INPUT_SCHEMA', 'INVALID_PARAMS'],
    ['INVALID_INPUT_SEMANTIC', 'INVALID_SEMANTIC'],
    ['INVALID_INPUT_SIZE', 'INPUT_TOO_LARGE'],
    ['UNKNOWN', 'INTERNAL'],
  ])('decodes the ESRP error %s as Plexus %s and back', (esrp, plexus) => {
    const retryable = ['BACKEND_UNAVAILABLE', 'TIMEOUT', 'OOM'].includes(esrp);
    const wire = { ...failed(), error: { code: esrp, message: 'm', retryable } };
    const envelope = esrpResponseCodec.decode(wire);
    expect(envelope.kind).toBe('error');
    expect(envelope.data).toMatchObject({
      code: plexus,
      retryable,
      details: { esrp: { code: esrp, details: null } },
    });
    expect(esrpResponseCodec.encode(envelope)).toEqual({ ...wire, error: { ...wire.error, details: null } });
  });

  it('writes a Plexus error envelope from another face as a failed ESRP response', () => {
    const envelope: Envelope = {
      id: 'e-1',
      kind: 'error',
      from: 'node-a',
      to: 'caller',
      verb: 'tts.synthesize',
      data: { code: 'RATE_LIMITED', message: 'slow down', retryable: true, details: { windowMs: 1000 } },
      correlationId: '550e8400-e29b-41d4-a716-446655440000',
      timestamp: '2025-01-01T00:00:01Z',
    };
    expect(esrpResponseCodec.encode(envelope)).toEqual({
      esrp_version: '1.0',
      request_id: '550e8400-e29b-41d4-a716-446655440000',
      status: 'failed',
      timing: { finished_at: '2025-01-01T00:00:01Z' },
      outputs: [],
      artifacts: [],
      error: {
        code: 'BACKEND_UNAVAILABLE',
        message: 'slow down',
        retryable: true,
        details: { windowMs: 1000 },
      },
    });
  });

  it('writes a foreign response result as one JSON output', () => {
    const envelope: Envelope = {
      id: '550e8400-e29b-41d4-a716-446655440000',
      kind: 'response',
      from: 'a',
      to: 'b',
      verb: 'x.y',
      data: { result: 42 },
    };
    expect(esrpResponseCodec.encode(envelope)).toEqual({
      esrp_version: '1.0',
      request_id: '550e8400-e29b-41d4-a716-446655440000',
      status: 'succeeded',
      outputs: [
        {
          name: 'result',
          content_type: 'application/json',
          data: '{"result":42}',
          encoding: 'utf-8',
          metadata: null,
        },
      ],
      artifacts: [],
    });
  });

  it('keeps outputs, artifacts and job of a failed response in extensions', () => {
    const wire = {
      ...failed(),
      job: { job_id: 'aa0e8400-e29b-41d4-a716-446655440000', state: 'failed' },
      outputs: [
        { name: 'log', content_type: 'text/plain', data: 'partial', encoding: 'utf-8', metadata: null },
      ],
    };
    const envelope = esrpResponseCodec.decode(wire);
    expect(Object.keys(envelope.extensions ?? {}).sort()).toEqual(['_x_esrp_job', '_x_esrp_outputs']);
    expect(esrpResponseCodec.encode(envelope)).toEqual({
      ...wire,
      error: { ...(failed()['error'] as object), details: null },
    });
  });

  it('refuses envelopes of other kinds and without a request UUID', () => {
    const base: Envelope = { id: 'x', kind: 'request', from: '', to: '', verb: '', data: null };
    expect(thrown(() => esrpResponseCodec.encode(base)).code).toBe('INVALID_PARAMS');
    expect(thrown(() => esrpResponseCodec.encode({ ...base, kind: 'response' })).message).toContain('UUID');
  });
});
