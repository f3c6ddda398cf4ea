import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  ESRP_TO_JOB_STATE,
  JOB_SCHEMA,
  JOB_STATES,
  JOB_STATE_TO_ESRP,
  JOB_TRANSITIONS,
  TERMINAL_JOB_STATES,
  assertTransition,
  canTransition,
  isJobState,
  isTerminalJobState,
  parseJob,
  validateJob,
} from '../../../src/core/records/job.js';
import type { Job, JobArtifact, JobTiming } from '../../../src/core/records/job.js';
import type { RequiredKeys } from './helpers.js';
import { errorOf } from './helpers.js';

const HASH = 'a'.repeat(64);
const DONE: Job = {
  id: 'job-1',
  verb: 'tts.synthesize',
  caller: 'did:key:z6Mkcaller',
  payloadHash: HASH,
  state: 'COMPLETED',
  timing: {
    createdAt: '2025-01-01T00:00:00Z',
    startedAt: '2025-01-01T00:00:00.5Z',
    finishedAt: '2025-01-01T00:00:01Z',
    updatedAt: '2025-01-01T00:00:01Z',
  },
  artifacts: [
    {
      sha256: 'b'.repeat(64),
      sizeBytes: 12345,
      contentType: 'audio/wav',
      uri: 'workspace://artifacts/a.wav',
    },
  ],
  attempts: 1,
  outputs: [
    { name: 'audio', content_type: 'audio/wav', data: 'workspace://artifacts/a.wav', encoding: 'path' },
  ],
};
const QUEUED: Job = {
  id: 'job-2',
  verb: 'HELP',
  caller: 'agent-a',
  payloadHash: HASH,
  state: 'SUBMITTED',
  timing: { createdAt: '2025-01-01T00:00:00Z' },
  artifacts: [],
  attempts: 0,
};

describe('Job schema', () => {
  it('is aligned with the Job type', () => {
    expectTypeOf<keyof Job>().toEqualTypeOf<keyof (typeof JOB_SCHEMA)['properties']>();
    expectTypeOf<RequiredKeys<Job>>().toEqualTypeOf<(typeof JOB_SCHEMA)['required'][number]>();
    expectTypeOf<keyof JobTiming>().toEqualTypeOf<
      keyof (typeof JOB_SCHEMA)['properties']['timing']['properties']
    >();
    expectTypeOf<keyof JobArtifact>().toEqualTypeOf<
      keyof (typeof JOB_SCHEMA)['properties']['artifacts']['items']['properties']
    >();
  });

  it('accepts valid jobs in several states', () => {
    expect(validateJob(DONE)).toEqual([]);
    expect(validateJob(QUEUED)).toEqual([]);
    expect(
      validateJob({
        ...QUEUED,
        state: 'FAILED',
        error: { code: 'TIMEOUT', message: 'deadline passed', retryable: true },
        timing: { createdAt: '2025-01-01T00:00:00Z', finishedAt: '2025-01-01T00:10:00Z' },
      }),
    ).toEqual([]);
  });

  it('reports missing and malformed fields', () => {
    expect(validateJob({}).map((p) => p.message)).toEqual(
      JOB_SCHEMA.required.map((f) => `missing required property "${f}"`),
    );
    expect(
      validateJob({
        ...QUEUED,
        payloadHash: 'ABC',
        state: 'queued',
        attempts: -1,
        error: { code: 'NOPE', message: 'x' },
      }),
    ).toEqual(
      expect.arrayContaining([
        { pointer: '/payloadHash', message: 'must match the pattern ^[0-9a-f]{64}$' },
        { pointer: '/state', message: `must be one of ${JOB_STATES.join(', ')}` },
        { pointer: '/attempts', message: 'must be >= 0' },
        { pointer: '/error', message: 'missing required property "retryable"' },
      ]),
    );
  });

  it('enforces the state rules', () => {
    const at = (job: object): string[] => validateJob(job).map((p) => `${p.pointer}: ${p.message}`);
    expect(at({ ...DONE, state: 'FAILED' })).toEqual([
      ': missing required property "error", required when state is FAILED',
    ]);
    expect(at({ ...DONE, error: { code: 'INTERNAL', message: 'x', retryable: false } })).toEqual([
      '/error: a COMPLETED job must not carry an error',
    ]);
    expect(
      at({ ...DONE, timing: { createdAt: '2025-01-01T00:00:00Z', startedAt: '2025-01-01T00:00:00Z' } }),
    ).toEqual(['/timing: missing required property "finishedAt", required when state is COMPLETED']);
    expect(at({ ...DONE, state: 'WORKING' })).toEqual([
      '/timing/finishedAt: must be absent while the job is WORKING',
    ]);
    expect(at({ ...QUEUED, state: 'WORKING', attempts: 1 })).toEqual([
      '/timing: missing required property "startedAt", required when state is WORKING',
    ]);
    expect(at({ ...QUEUED, attempts: 2 })).toEqual(['/attempts: must be 0 while the job is SUBMITTED']);
    expect(at({ ...DONE, attempts: 0 })).toEqual([
      '/attempts: must be at least 1 once the job has been WORKING (state COMPLETED)',
    ]);
    expect(at({ ...QUEUED, timing: { ...QUEUED.timing, startedAt: '2025-01-01T00:00:01Z' } })).toEqual([
      '/timing/startedAt: must be absent while the job is SUBMITTED',
    ]);
  });

  it('checks that the times are in order, whatever their offsets', () => {
    const timing = {
      createdAt: '2025-01-01T01:00:00+01:00',
      startedAt: '2025-01-01T00:00:00.001Z',
      finishedAt: '2025-01-01T00:00:00Z',
    };
    expect(validateJob({ ...DONE, timing })).toEqual([
      { pointer: '/timing/finishedAt', message: 'must not be before startedAt 2025-01-01T00:00:00.001Z' },
    ]);
  });

  it('parseJob throws INVALID_PARAMS with details.problems', () => {
    expect(parseJob(DONE)).toBe(DONE);
    expect(errorOf(() => parseJob({ ...DONE, state: 'DONE' })).code).toBe('INVALID_PARAMS');
  });
});

describe('job state machine', () => {
  it('lets a job run to each terminal state', () => {
    expect(canTransition('SUBMITTED', 'WORKING')).toBe(true);
    expect(canTransition('WORKING', 'COMPLETED')).toBe(true);
    expect(canTransition('WORKING', 'INPUT_REQUIRED')).toBe(true);
    expect(canTransition('INPUT_REQUIRED', 'WORKING')).toBe(true);
    expect(canTransition('AUTH_REQUIRED', 'REJECTED')).toBe(true);
    expect(canTransition('SUBMITTED', 'CANCELED')).toBe(true);
  });

  it('never leaves a terminal state and never moves to itself', () => {
    for (const from of JOB_STATES) {
      expect(canTransition(from, from)).toBe(false);
      if (isTerminalJobState(from)) for (const to of JOB_STATES) expect(canTransition(from, to)).toBe(false);
    }
    expect([...TERMINAL_JOB_STATES].sort()).toEqual(
      JOB_STATES.filter((s) => JOB_TRANSITIONS[s].length === 0).sort(),
    );
  });

  it('refuses skipping work or going back', () => {
    expect(canTransition('SUBMITTED', 'COMPLETED')).toBe(false);
    expect(canTransition('WORKING', 'SUBMITTED')).toBe(false);
    expect(canTransition('INPUT_REQUIRED', 'COMPLETED')).toBe(false);
  });

  it('every state can reach a terminal state', () => {
    for (const start of JOB_STATES) {
      const seen = new Set([start]);
      const todo = [start];
      for (let state = todo.pop(); state !== undefined; state = todo.pop()) {
        for (const next of JOB_TRANSITIONS[state]) {
          if (!seen.has(next)) {
            seen.add(next);
            todo.push(next);
          }
        }
      }
      expect([...seen].some(isTerminalJobState)).toBe(true);
    }
  });

  it('assertTransition explains what is allowed', () => {
    expect(() => {
      assertTransition('SUBMITTED', 'WORKING');
    }).not.toThrow();
    const err = errorOf(() => {
      assertTransition('SUBMITTED', 'COMPLETED');
    });
    expect(err.code).toBe('CONFLICT');
    expect(err.message).toBe(
      'a job cannot move from SUBMITTED to COMPLETED; from SUBMITTED it may move to WORKING, FAILED, CANCELED, REJECTED',
    );
    expect(
      errorOf(() => {
        assertTransition('COMPLETED', 'WORKING');
      }).message,
    ).toMatch(/finished/);
  });

  it('isJobState accepts only the eight states', () => {
    expect(isJobState('WORKING')).toBe(true);
    expect(isJobState('working')).toBe(false);
  });
});

describe('ESRP face mapping', () => {
  it('maps every state to an ESRP status and back consistently', () => {
    expect(JOB_STATE_TO_ESRP).toEqual({
      SUBMITTED: 'queued',
      WORKING: 'started',
      INPUT_REQUIRED: 'started',
      AUTH_REQUIRED: 'started',
      COMPLETED: 'succeeded',
      FAILED: 'failed',
      CANCELED: 'cancelled',
      REJECTED: 'failed',
    });
    for (const [status, state] of Object.entries(ESRP_TO_JOB_STATE)) {
      expect(JOB_STATE_TO_ESRP[state]).toBe(status);
    }
  });

  it('keeps the ESRP machine queued → started → succeeded|failed|cancelled and queued → cancelled', () => {
    const s = ESRP_TO_JOB_STATE;
    expect(canTransition(s.queued, s.started)).toBe(true);
    expect(canTransition(s.started, s.succeeded)).toBe(true);
    expect(canTransition(s.started, s.failed)).toBe(true);
    expect(canTransition(s.started, s.cancelled)).toBe(true);
    expect(canTransition(s.queued, s.cancelled)).toBe(true);
  });
});
