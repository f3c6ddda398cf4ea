import { describe, expect, it } from 'vitest';
import { createNovaEnvelope, decodeNova, validateNova } from '../../../src/wire/nova/index.js';
import { errorOf } from '../../core/records/helpers.js';

describe('createNovaEnvelope', () => {
  it('assigns the id and the current time from the injected sources (Req. 2.2)', () => {
    let n = 0;
    const env = createNovaEnvelope(
      {
        type: 'request',
        from: 'mars',
        to: 'capability:code.review.run',
        payload: { pr: 7 },
        verb: 'code.review.run',
      },
      { clock: () => new Date('2025-03-04T05:06:07.089Z'), newId: () => `id-${String(++n)}` },
    );
    expect(env).toEqual({
      schemaVersion: '1.0',
      id: 'id-1',
      type: 'request',
      from: 'mars',
      to: 'capability:code.review.run',
      correlationId: 'id-1',
      timestamp: '2025-03-04T05:06:07.089Z',
      payload: { pr: 7 },
      verb: 'code.review.run',
    });
    expect(validateNova(env)).toEqual([]);
  });

  it('keeps a given correlation id, metadata and extensions', () => {
    const env = createNovaEnvelope({
      type: 'task-accept',
      from: 'venus',
      to: 'mars',
      payload: { estimatedCompletion: '2025-01-01T01:00:00Z' },
      correlationId: 'thread-9',
      metadata: { tenantId: 'nova26', channelId: 'c1' },
      extensions: { _x_trace_note: 'x' },
    });
    expect(env.correlationId).toBe('thread-9');
    expect(env.metadata).toEqual({ tenantId: 'nova26', channelId: 'c1' });
    expect(env['_x_trace_note']).toBe('x');
    expect(decodeNova(env).correlationId).toBe('thread-9');
  });

  it('gives unique ids and a current timestamp by default', () => {
    const before = Date.now();
    const ids = new Set(
      Array.from(
        { length: 200 },
        () => createNovaEnvelope({ type: 'notification', from: 'a', to: 'broadcast', payload: null }).id,
      ),
    );
    expect(ids.size).toBe(200);
    const env = createNovaEnvelope({ type: 'notification', from: 'a', to: '*', payload: null });
    expect(Date.parse(env.timestamp)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(env.timestamp)).toBeLessThanOrEqual(Date.now());
  });

  it('refuses to create an invalid envelope', () => {
    const err = errorOf(() =>
      createNovaEnvelope({ type: 'request', from: 'broadcast', to: 'b', payload: 1 }),
    );
    expect(err.code).toBe('INVALID_PARAMS');
    expect(err.details).toEqual({
      problems: [
        {
          pointer: '/from',
          message: '"broadcast" addresses every agent; "from" must be the sender\'s agent id',
        },
      ],
    });
    expect(
      errorOf(() =>
        createNovaEnvelope({ type: 'request', from: 'a', to: 'b', payload: 1 }, { newId: () => '' }),
      ).code,
    ).toBe('INVALID_PARAMS');
  });
});
