import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalizeEsrp } from '../../../src/core/canonical/esrp.js';
import { PlexusError } from '../../../src/core/errors.js';
import { payloadHash } from '../../../src/core/esrp/payload-hash.js';
import { parseEsrpRequest, validateEsrpRequest } from '../../../src/core/esrp/request.js';
import {
  canonicalizeEsrpRequestText,
  parseEsrpRequestText,
  payloadHashText,
} from '../../../src/core/esrp/text.js';
import type { Problem } from '../../../src/core/problem.js';

const base = (): Record<string, unknown> => ({
  esrp_version: '1.0',
  request_id: '550e8400-e29b-41d4-a716-446655440000',
  timestamp: '2025-01-01T00:00:00Z',
  caller: { system: 'erasmus' },
  target: { service: 'tts', operation: 'synthesize' },
  inputs: [{ name: 'text', content_type: 'text/plain', data: 'Hello', encoding: 'utf-8' }],
});

function problemsOf(fn: () => unknown): Problem[] {
  try {
    fn();
  } catch (error) {
    if (error instanceof PlexusError) return (error.details?.['problems'] ?? []) as unknown as Problem[];
    throw error;
  }
  throw new Error('expected a PlexusError');
}

const pointers = (problems: readonly Problem[]): string[] => problems.map((p) => p.pointer);

describe('parseEsrpRequest (typed parse)', () => {
  it('fills the defaults: mode, params and input metadata', () => {
    const request = parseEsrpRequest(base());
    expect(request.mode).toEqual({ type: 'sync', timeout_ms: 600000 });
    expect(request.params).toBeNull();
    expect(request.inputs[0]?.metadata).toBeNull();
    expect(canonicalizeEsrp(request)).toBe(
      '{"caller":{"system":"erasmus"},"esrp_version":"1.0","inputs":[{"content_type":"text/plain","data":"Hello",' +
        '"encoding":"utf-8","metadata":null,"name":"text"}],"mode":{"timeout_ms":600000,"type":"sync"},"params":null,' +
        '"request_id":"550e8400-e29b-41d4-a716-446655440000","target":{"operation":"synthesize","service":"tts"},' +
        '"timestamp":"2025-01-01T00:00:00Z"}',
    );
  });

  it('defaults timeout_ms inside a given mode', () => {
    expect(parseEsrpRequest({ ...base(), mode: { type: 'async' } }).mode).toEqual({
      type: 'async',
      timeout_ms: 600000,
    });
  });

  it('drops unknown fields at every level', () => {
    const request = parseEsrpRequest({
      ...base(),
      extra: 1,
      caller: { system: 'erasmus', nickname: 'x' },
      target: { service: 'tts', operation: 'synthesize', region: 'eu' },
      inputs: [{ name: 'text', content_type: 'text/plain', data: 'Hello', encoding: 'utf-8', size: 5 }],
    });
    expect(canonicalizeEsrp(request)).toBe(canonicalizeEsrp(parseEsrpRequest(base())));
  });

  it('omits optional fields that are absent or null', () => {
    const request = parseEsrpRequest({
      ...base(),
      idempotency_key: null,
      scope_id: null,
      context: null,
      params_schema_ref: null,
      target: { service: 'tts', operation: 'synthesize', variant: null },
      caller: { system: 'erasmus', agent_id: null },
    });
    expect(Object.keys(request).sort()).toEqual(
      ['caller', 'esrp_version', 'inputs', 'mode', 'params', 'request_id', 'target', 'timestamp'].sort(),
    );
    expect(request.target).toEqual({ service: 'tts', operation: 'synthesize' });
    expect(request.caller).toEqual({ system: 'erasmus' });
  });

  it('keeps explicit null params and metadata as null, and context tags default to null', () => {
    const request = parseEsrpRequest({
      ...base(),
      params: null,
      context: {
        trace_id: '770e8400-e29b-41d4-a716-446655440000',
        span_id: '880e8400-e29b-41d4-a716-446655440000',
      },
    });
    expect(request.params).toBeNull();
    expect(request.context).toEqual({
      trace_id: '770e8400-e29b-41d4-a716-446655440000',
      span_id: '880e8400-e29b-41d4-a716-446655440000',
      tags: null,
    });
  });

  it('lower-cases UUIDs and accepts the simple, braced and URN forms', () => {
    const request = parseEsrpRequest({
      ...base(),
      request_id: '550E8400-E29B-41D4-A716-446655440000',
      scope_id: '660E8400E29B41D4A716446655440000',
      causation_id: '{550e8400-e29b-41d4-a716-44665544000A}',
      context: {
        trace_id: 'urn:uuid:770E8400-e29b-41d4-a716-446655440000',
        span_id: '880e8400-e29b-41d4-a716-446655440000',
      },
    });
    expect(request.request_id).toBe('550e8400-e29b-41d4-a716-446655440000');
    expect(request.scope_id).toBe('660e8400-e29b-41d4-a716-446655440000');
    expect(request.causation_id).toBe('550e8400-e29b-41d4-a716-44665544000a');
    expect(request.context?.trace_id).toBe('770e8400-e29b-41d4-a716-446655440000');
  });

  it('writes the timestamp in UTC as the reference does', () => {
    expect(parseEsrpRequest({ ...base(), timestamp: '2025-01-01T01:30:00+01:30' }).timestamp).toBe(
      '2025-01-01T00:00:00Z',
    );
    expect(parseEsrpRequest({ ...base(), timestamp: '2025-01-01T00:00:00.120Z' }).timestamp).toBe(
      '2025-01-01T00:00:00.120Z',
    );
  });

  it('reports every missing or mistyped field with its pointer', () => {
    const problems = problemsOf(() =>
      parseEsrpRequest({
        esrp_version: 1,
        request_id: 'not-a-uuid',
        timestamp: 'yesterday',
        caller: {},
        target: { service: 'tts' },
        mode: { type: 'later', timeout_ms: -1 },
        context: { trace_id: 'x' },
        inputs: [{ name: 'a', content_type: 'text/plain', data: 5, encoding: 'utf-16' }, 'nope'],
      }),
    );
    expect(pointers(problems)).toEqual([
      '/esrp_version',
      '/request_id',
      '/timestamp',
      '/caller/system',
      '/target/operation',
      '/mode/type',
      '/mode/timeout_ms',
      '/context/trace_id',
      '/context/span_id',
      '/inputs/0/data',
      '/inputs/0/encoding',
      '/inputs/1',
    ]);
  });

  it('reports a missing inputs array and a non-object document', () => {
    const rest = base();
    delete rest['inputs'];
    expect(pointers(problemsOf(() => parseEsrpRequest(rest)))).toEqual(['/inputs']);
    expect(pointers(problemsOf(() => parseEsrpRequest([])))).toEqual(['']);
    expect(pointers(problemsOf(() => parseEsrpRequest({ ...base(), mode: null })))).toEqual(['/mode']);
  });

  it('rejects non-integer numbers in params and metadata, judged on source text', () => {
    const text = JSON.stringify(base())
      .replace('"encoding":"utf-8"}', '"encoding":"utf-8","metadata":{"w":56.0}}')
      .replace(/}$/, ',"params":{"temperature":0.7,"n":1e3}}');
    expect(pointers(problemsOf(() => parseEsrpRequestText(text)))).toEqual([
      '/inputs/0/metadata/w',
      '/params/temperature',
      '/params/n',
    ]);
  });

  it('keeps integers beyond 2^53 exact from text', () => {
    const text = JSON.stringify(base()).replace(/}$/, ',"params":{"id":123456789012345678901234567890}}');
    expect(canonicalizeEsrpRequestText(text)).toContain('"params":{"id":123456789012345678901234567890}');
  });

  it('refuses an unsafe integer that has already lost its digits', () => {
    expect(pointers(problemsOf(() => parseEsrpRequest({ ...base(), params: { id: 2 ** 60 } })))).toEqual([
      '/params/id',
    ]);
  });
});

describe('validateEsrpRequest (rules)', () => {
  it('accepts a valid request', () => {
    expect(validateEsrpRequest(base())).toEqual([]);
  });

  it.each([
    ['2.0', 'not compatible'],
    ['1', 'major.minor'],
    ['1.0.0', 'major.minor'],
    ['v1.0', 'major.minor'],
  ])('refuses esrp_version %s', (version, message) => {
    const problems = validateEsrpRequest({ ...base(), esrp_version: version });
    expect(pointers(problems)).toEqual(['/esrp_version']);
    expect(problems[0]?.message).toContain(message);
  });

  it('accepts any 1.x version', () => {
    expect(validateEsrpRequest({ ...base(), esrp_version: '1.7' })).toEqual([]);
  });

  it('requires a non-empty inputs array', () => {
    expect(pointers(validateEsrpRequest({ ...base(), inputs: [] }))).toEqual(['/inputs']);
  });

  it('requires non-empty names, content types, caller system and target names', () => {
    const problems = validateEsrpRequest({
      ...base(),
      caller: { system: '' },
      target: { service: '', operation: '' },
      inputs: [{ name: '', content_type: '', data: 'x', encoding: 'utf-8' }],
    });
    expect(pointers(problems)).toEqual([
      '/caller/system',
      '/target/service',
      '/target/operation',
      '/inputs/0/name',
      '/inputs/0/content_type',
    ]);
  });

  it('requires a positive timeout', () => {
    expect(pointers(validateEsrpRequest({ ...base(), mode: { type: 'sync', timeout_ms: 0 } }))).toEqual([
      '/mode/timeout_ms',
    ]);
  });

  it.each([
    'workspace://temp/../etc/passwd',
    'workspace:///etc/passwd',
    'workspace://ns//absolute',
    'workspace://',
    'workspace://namespace',
    'workspace://namespace/',
    'workspace://with space/f',
    'workspace://ns/a\\b',
    'workspace://ns/a\u0000b',
    'workspace://ns/C:/x',
  ])('refuses the path input %s', (uri) => {
    const input = { name: 'f', content_type: 'audio/wav', data: uri, encoding: 'path' };
    const problems = validateEsrpRequest({ ...base(), inputs: [input] });
    expect(pointers(problems)).toEqual(['/inputs/0/data']);
  });

  it('accepts valid workspace URIs and other non-empty paths', () => {
    for (const data of ['workspace://artifacts/audio.wav', 'workspace://temp/a/b/c.txt', '/tmp/file.wav']) {
      const input = { name: 'f', content_type: 'audio/wav', data, encoding: 'path' };
      expect(validateEsrpRequest({ ...base(), inputs: [input] })).toEqual([]);
    }
    const empty = { name: 'f', content_type: 'audio/wav', data: '', encoding: 'path' };
    expect(pointers(validateEsrpRequest({ ...base(), inputs: [empty] }))).toEqual(['/inputs/0/data']);
  });

  it('checks base64 data', () => {
    const ok = { name: 'b', content_type: 'application/octet-stream', data: 'aGVsbG8=', encoding: 'base64' };
    const bad = { ...ok, data: 'not base64!' };
    expect(validateEsrpRequest({ ...base(), inputs: [ok] })).toEqual([]);
    expect(pointers(validateEsrpRequest({ ...base(), inputs: [bad] }))).toEqual(['/inputs/0/data']);
  });

  it('checks a given payload_hash against the payload', () => {
    const good = payloadHash(parseEsrpRequest(base()));
    expect(validateEsrpRequest({ ...base(), payload_hash: good })).toEqual([]);
    expect(pointers(validateEsrpRequest({ ...base(), payload_hash: '0'.repeat(64) }))).toEqual([
      '/payload_hash',
    ]);
  });

  it('reports typed-parse and rule problems together', () => {
    const problems = validateEsrpRequest({ ...base(), esrp_version: '3.0', request_id: 7, inputs: [] });
    expect(pointers(problems)).toEqual(['/request_id', '/esrp_version', '/inputs']);
  });
});

describe('payloadHash', () => {
  it('hashes target with variant null, the five input fields and params', () => {
    const request = parseEsrpRequest({ ...base(), idempotency_key: 'k', params: { b: 1, a: 2 } });
    const expected =
      '{"inputs":[{"content_type":"text/plain","data":"Hello","encoding":"utf-8","metadata":null,"name":"text"}],' +
      '"params":{"a":2,"b":1},"target":{"operation":"synthesize","service":"tts","variant":null}}';
    expect(payloadHash(request)).toBe(payloadHashText(JSON.stringify({ ...base(), params: { a: 2, b: 1 } })));
    expect(payloadHash(request)).toMatch(/^[0-9a-f]{64}$/);
    // SHA-256 of the expected canonical payload, computed without Plexus's hash wrapper.
    expect(payloadHash(request)).toBe(createHash('sha256').update(expected).digest('hex'));
  });

  it('changes with the variant, the input order and params, not with other fields', () => {
    const h = (extra: Record<string, unknown>): string =>
      payloadHash(parseEsrpRequest({ ...base(), ...extra }));
    const plain = h({});
    expect(h({ target: { service: 'tts', operation: 'synthesize', variant: 'fast' } })).not.toBe(plain);
    expect(h({ params: {} })).not.toBe(plain);
    expect(h({ request_id: '550e8400-e29b-41d4-a716-446655440009', timestamp: '2026-01-01T00:00:00Z' })).toBe(
      plain,
    );
    const two = [
      { name: 'a', content_type: 'text/plain', data: 'A', encoding: 'utf-8' },
      { name: 'b', content_type: 'text/plain', data: 'B', encoding: 'utf-8' },
    ];
    expect(h({ inputs: two })).not.toBe(h({ inputs: [...two].reverse() }));
  });
});
