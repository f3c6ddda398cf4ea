import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canonicalizeEsrp } from '../../../src/core/canonical/esrp.js';
import { parseJsonLossless } from '../../../src/core/canonical/lossless.js';
import { parseEsrpRequest } from '../../../src/core/esrp/request.js';
import { parseEsrpResponse } from '../../../src/core/esrp/response.js';
import { esrpRequestCodec, esrpResponseCodec } from '../../../src/wire/esrp/index.js';

const fixtures = new URL('../../fixtures/esrp-v1/', import.meta.url);
const read = (path: string): unknown => JSON.parse(readFileSync(new URL(path, fixtures), 'utf8'));
const requests = readdirSync(new URL('requests/', fixtures)).filter((f) => f.endsWith('.json'));
const responses = readdirSync(new URL('responses/', fixtures)).filter((f) => f.endsWith('.json'));

describe('esrp wire codecs on the golden fixtures', () => {
  it.each(requests)('decodes requests/%s and encodes it back to the same canonical bytes', (file) => {
    const wire = read(`requests/${file}`);
    expect(esrpRequestCodec.validate(wire)).toEqual([]);
    const envelope = esrpRequestCodec.decode(wire);
    expect(envelope.kind).toBe('request');
    const back = esrpRequestCodec.encode(envelope);
    expect(canonicalizeEsrp(back)).toBe(canonicalizeEsrp(parseEsrpRequest(wire)));
    expect(canonicalizeEsrp(back)).toBe(readFileSync(new URL(`canonical/${file}`, fixtures), 'utf8'));
  });

  it.each(requests)('decodes requests/%s from a lossless parse too', (file) => {
    const text = readFileSync(new URL(`requests/${file}`, fixtures), 'utf8');
    expect(esrpRequestCodec.decode(parseJsonLossless(text))).toEqual(
      esrpRequestCodec.decode(JSON.parse(text)),
    );
  });

  it.each(responses)('decodes responses/%s and encodes back its typed-parse form', (file) => {
    const wire = read(`responses/${file}`);
    expect(esrpResponseCodec.validate(wire)).toEqual([]);
    const envelope = esrpResponseCodec.decode(wire);
    expect(envelope.kind).toBe((wire as { status: string }).status === 'failed' ? 'error' : 'response');
    const back = esrpResponseCodec.encode(envelope);
    // The typed parse writes timestamps as the reference does (".000Z" becomes "Z"); nothing else changes.
    expect(back).toEqual(parseEsrpResponse(wire));
    expect(JSON.stringify(back).replace(/\.000Z/g, 'Z')).toBe(JSON.stringify(wire).replace(/\.000Z/g, 'Z'));
  });

  it('maps image_generation onto the envelope fields', () => {
    const envelope = esrpRequestCodec.decode(read('requests/image_generation.json'));
    expect(envelope).toMatchObject({
      id: '550e8400-e29b-41d4-a716-446655440002',
      kind: 'request',
      from: 'art-agent',
      to: 'art',
      verb: 'art.generate',
      scopeId: '660e8400-e29b-41d4-a716-446655440000',
      causationId: '550e8400-e29b-41d4-a716-446655440001',
      traceparent: '00-770e8400e29b41d4a716446655440000-880e8400e29b41d4-01',
      timestamp: '2025-01-01T00:00:00Z',
      schemaVersion: '1.0',
      data: {
        inputs: [
          {
            name: 'prompt',
            content_type: 'text/plain',
            data: 'A serene mountain landscape at sunset',
            encoding: 'utf-8',
            metadata: {},
          },
        ],
        params: { width: 1024, height: 768, style: 'photorealistic', seed: '42' },
      },
      extensions: {
        _x_esrp_caller: { system: 'erasmus', agent_id: 'art-agent', run_id: 'run-abc123' },
        _x_esrp_target: { service: 'art', operation: 'generate', variant: 'fast' },
        _x_esrp_mode: { type: 'sync', timeout_ms: 120000 },
        _x_esrp_idempotency_key: 'user-request-12345',
        _x_esrp_params_schema_ref: 'https://example.com/schemas/art-generate.json',
      },
    });
  });

  it('maps a failed response onto an error envelope carrying the ESRP error', () => {
    const envelope = esrpResponseCodec.decode(read('responses/simple_tts_error.json'));
    expect(envelope.kind).toBe('error');
    expect(envelope.correlationId).toBe('550e8400-e29b-41d4-a716-446655440000');
    expect(envelope.data).toEqual({
      code: 'PEER_UNAVAILABLE',
      message: 'Text-to-speech service is temporarily unavailable',
      retryable: true,
      details: {
        esrp: {
          code: 'BACKEND_UNAVAILABLE',
          retry_after_ms: 5000,
          retry_strategy: 'exponential',
          max_retries: 3,
          details: {
            backend_url: 'http://localhost:7097',
            http_status: 502,
            last_successful: '2025-01-01T00:00:00Z',
          },
        },
      },
    });
    expect(envelope.timestamp).toBe('2025-01-01T00:00:05Z');
  });

  it('maps an accepted response onto a response envelope with the job', () => {
    const envelope = esrpResponseCodec.decode(read('responses/async_video_accepted.json'));
    expect(envelope.kind).toBe('response');
    expect(envelope.data).toEqual({
      status: 'accepted',
      outputs: [],
      artifacts: [],
      job: { job_id: 'aa0e8400-e29b-41d4-a716-446655440000', state: 'queued' },
    });
  });
});
