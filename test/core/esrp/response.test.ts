import { describe, expect, it } from 'vitest';
import { PlexusError } from '../../../src/core/errors.js';
import { ESRP_ERROR_CODES } from '../../../src/core/esrp/model.js';
import { parseEsrpResponse, validateEsrpResponse } from '../../../src/core/esrp/response.js';
import { parseEsrpResponseText } from '../../../src/core/esrp/text.js';
import { ESRP_ERROR_TABLE } from '../../../src/core/esrp/error-table.js';

const ok = (): Record<string, unknown> => ({
  esrp_version: '1.0',
  request_id: '550e8400-e29b-41d4-a716-446655440000',
  status: 'succeeded',
});
const artifact = (): Record<string, unknown> => ({
  artifact_id: '990e8400-e29b-41d4-a716-446655440000',
  kind: 'file',
  uri: 'workspace://artifacts/a.wav',
  sha256: 'a'.repeat(64),
  size_bytes: 10,
  retention: 'run',
});
const pointers = (value: unknown): string[] => validateEsrpResponse(value).map((p) => p.pointer);

describe('parseEsrpResponse (typed parse)', () => {
  it('defaults outputs and artifacts to empty arrays and error fields to the reference defaults', () => {
    const response = parseEsrpResponse({
      ...ok(),
      status: 'failed',
      error: { code: 'UNKNOWN', message: 'boom' },
    });
    expect(response.outputs).toEqual([]);
    expect(response.artifacts).toEqual([]);
    expect(response.error).toEqual({ code: 'UNKNOWN', message: 'boom', retryable: false, details: null });
  });

  it('allows a fractional duration_ms (the seed example) and floats in metadata', () => {
    const response = parseEsrpResponseText(
      JSON.stringify({ ...ok(), timing: { started_at: '2025-01-01T00:00:00Z' } }).replace(
        '"started_at":"2025-01-01T00:00:00Z"',
        '"started_at":"2025-01-01T00:00:00Z","duration_ms":1234.5',
      ),
    );
    expect(response.timing?.duration_ms).toBe(1234.5);
    const withFloat = {
      ...ok(),
      outputs: [
        { name: 'o', content_type: 'text/plain', data: 'x', encoding: 'utf-8', metadata: { score: 0.93 } },
      ],
    };
    expect(validateEsrpResponse(withFloat)).toEqual([]);
  });

  it('refuses unknown status, job state, error code and retry strategy', () => {
    expect(() => parseEsrpResponse({ ...ok(), status: 'done' })).toThrow(PlexusError);
    const problems = validateEsrpResponse({
      ...ok(),
      status: 'failed',
      job: { job_id: 'aa0e8400-e29b-41d4-a716-446655440000', state: 'running' },
      error: { code: 'NOPE', message: 'x', retry_strategy: 'random' },
    });
    expect(problems.map((p) => p.pointer)).toEqual(['/job/state', '/error/code', '/error/retry_strategy']);
  });

  it('accepts every status and job state', () => {
    for (const state of ['queued', 'started', 'succeeded', 'failed', 'cancelled']) {
      const job = { job_id: 'aa0e8400-e29b-41d4-a716-446655440000', state };
      expect(validateEsrpResponse({ ...ok(), status: 'accepted', job })).toEqual([]);
    }
  });
});

describe('validateEsrpResponse (rules)', () => {
  it('requires error when failed and job when accepted', () => {
    expect(pointers({ ...ok(), status: 'failed' })).toEqual(['/error']);
    expect(pointers({ ...ok(), status: 'accepted' })).toEqual(['/job']);
  });

  it('refuses an error on a response that did not fail', () => {
    expect(pointers({ ...ok(), error: { code: 'UNKNOWN', message: 'x' } })).toEqual(['/error']);
  });

  it.each(ESRP_ERROR_CODES)('holds %s to the retryable flag of the ESRP error table', (code) => {
    const retryable = ESRP_ERROR_TABLE[code].retryable;
    const error = { code, message: 'x', retryable };
    expect(validateEsrpResponse({ ...ok(), status: 'failed', error })).toEqual([]);
    expect(pointers({ ...ok(), status: 'failed', error: { ...error, retryable: !retryable } })).toEqual([
      '/error/retryable',
    ]);
  });

  it('checks artifacts: workspace URI, sha256 and size', () => {
    expect(pointers({ ...ok(), artifacts: [artifact()] })).toEqual([]);
    expect(pointers({ ...ok(), artifacts: [{ ...artifact(), uri: 'https://example.com/a.wav' }] })).toEqual(
      [],
    );
    expect(
      pointers({
        ...ok(),
        artifacts: [{ ...artifact(), uri: 'workspace://artifacts/../x', sha256: 'abc', size_bytes: 0 }],
      }),
    ).toEqual(['/artifacts/0/uri', '/artifacts/0/sha256', '/artifacts/0/size_bytes']);
  });

  it('checks outputs like inputs', () => {
    const output = { name: '', content_type: 'audio/wav', data: 'workspace://x/../y', encoding: 'path' };
    expect(pointers({ ...ok(), outputs: [output] })).toEqual(['/outputs/0/name', '/outputs/0/data']);
  });

  it('refuses a negative duration and malformed timestamps', () => {
    expect(pointers({ ...ok(), timing: { duration_ms: -1, finished_at: 'soon' } })).toEqual([
      '/timing/finished_at',
    ]);
    expect(pointers({ ...ok(), timing: { duration_ms: -1 } })).toEqual(['/timing/duration_ms']);
  });

  it('refuses a version other than 1.x', () => {
    expect(pointers({ ...ok(), esrp_version: '2.0' })).toEqual(['/esrp_version']);
  });
});
