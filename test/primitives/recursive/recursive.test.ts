import { afterEach, describe, expect, it } from 'vitest';
import { RECURSIVE_PROJECTIONS, TRACE_STEPS_KEPT } from '../../../src/primitives/recursive/index.js';
import { expectSameShape, seedPairs, startCore, type Core } from '../shared/core-harness.js';
import { openEventLog } from '../../../src/store/event-map.js';

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

describe('recursive primitive', () => {
  let core: Core | undefined;
  afterEach(async () => {
    await core?.close();
    core = undefined;
  });

  async function session(): Promise<string> {
    return (await core!.ok('state.createSession', {})).sessionId as string;
  }

  it('answers the seed analyze request with the seed field names and types', async () => {
    core = await startCore();
    const pairs = seedPairs('recursive');
    expect(pairs.map((p) => p.request.method)).toEqual(['recursive.analyze']);
    const sessionId = await session();
    for (const pair of pairs) {
      const result = await core.ok(pair.request.method, { ...pair.request.params, sessionId });
      expectSameShape(result, pair.response.result!);
      expect(result).toMatchObject({
        isLooping: true,
        pattern: 'refine-search-query -> web-search -> analyze-results',
        depth: 7,
        recommendation: 'warn',
      });
    }
  });

  it("uses the session's maxDepth in analyze", async () => {
    core = await startCore({ recursive: { defaultMaxDepth: 5 } });
    const sessionId = await session();
    const stack = ['a', 'b', 'c', 'd', 'e', 'f'];
    expect(
      (await core.ok('recursive.analyze', { sessionId, currentStep: 'f', callStack: stack })).recommendation,
    ).toBe('halt');
    await core.ok('recursive.setMaxDepth', { sessionId, maxDepth: 6 });
    expect(
      (await core.ok('recursive.analyze', { sessionId, currentStep: 'f', callStack: stack })).recommendation,
    ).toBe('continue');
  });

  it('tracks steps and answers the trace', async () => {
    core = await startCore({ time: Date.UTC(2026, 2, 18, 12, 0, 0) });
    const sessionId = await session();
    expect(await core.ok('recursive.track', { sessionId, step: 'plan', depth: 0 })).toEqual({
      tracked: true,
      depth: 0,
    });
    core.clock.now += 1000;
    await core.ok('recursive.track', { sessionId, step: 'search', depth: 1 });
    await core.ok('recursive.track', { sessionId, step: 'analyze', depth: 2 });
    expect(await core.ok('recursive.getTrace', { sessionId })).toEqual({
      steps: [
        { step: 'plan', depth: 0, at: '2026-03-18T12:00:00.000Z' },
        { step: 'search', depth: 1, at: '2026-03-18T12:00:01.000Z' },
        { step: 'analyze', depth: 2, at: '2026-03-18T12:00:01.000Z' },
      ],
      maxDepth: 50,
      totalIterations: 3,
      deepest: 2,
    });
    const fresh = await session();
    expect(await core.ok('recursive.getTrace', { sessionId: fresh })).toEqual({
      steps: [],
      maxDepth: 50,
      totalIterations: 0,
      deepest: 0,
    });
  });

  it('fails with LOOP_DETECTED when a tracked depth passes the maximum, and records it', async () => {
    core = await startCore();
    const sessionId = await session();
    expect(await core.ok('recursive.setMaxDepth', { sessionId, maxDepth: 3 })).toEqual({ updated: true });
    expect(await core.ok('recursive.setMaxDepth', { sessionId, maxDepth: 3 })).toEqual({ updated: false });
    await core.ok('recursive.track', { sessionId, step: 'deep', depth: 3 });
    const error = await core.fail('recursive.track', { sessionId, step: 'deeper', depth: 4 });
    expect(error.code).toBe('LOOP_DETECTED'); // −32005
    expect(error.details).toEqual({ sessionId, step: 'deeper', depth: 4, maxDepth: 3 });
    const trace = await core.ok('recursive.getTrace', { sessionId });
    expect(trace).toMatchObject({ maxDepth: 3, totalIterations: 1, deepest: 3 });
    expect(trace.lastViolation).toMatchObject({ step: 'deeper', depth: 4, maxDepth: 3 });
  });

  it('keeps the last steps of a long trace and counts them all', async () => {
    core = await startCore();
    const sessionId = await session();
    const view = core.recursive.views[0]!;
    // Feed the projection through the log directly to keep the test fast.
    const events = Array.from({ length: TRACE_STEPS_KEPT + 5 }, (_, i) => ({
      type: 'recursive.step_tracked',
      data: { sessionId, step: `s${i}`, depth: 1, at: i },
    }));
    const stored = await openEventLog(core.log).append(events);
    await view.waitFor(stored[stored.length - 1]!.seq);
    const trace = await core.ok('recursive.getTrace', { sessionId });
    expect(trace.totalIterations).toBe(TRACE_STEPS_KEPT + 5);
    const steps = trace.steps as { step: string }[];
    expect(steps).toHaveLength(TRACE_STEPS_KEPT);
    expect(steps[0]!.step).toBe('s5');
  });

  it('answers SESSION_NOT_FOUND for unknown sessions and refuses bad params naming the field', async () => {
    core = await startCore();
    for (const [method, params] of [
      ['recursive.analyze', { sessionId: UNKNOWN, currentStep: 'a', callStack: [] }],
      ['recursive.track', { sessionId: UNKNOWN, step: 'a', depth: 1 }],
      ['recursive.getTrace', { sessionId: UNKNOWN }],
      ['recursive.setMaxDepth', { sessionId: UNKNOWN, maxDepth: 3 }],
    ] as const) {
      expect((await core.fail(method, params)).code, method).toBe('SESSION_NOT_FOUND');
    }
    const sessionId = await session();
    for (const [method, params, field] of [
      ['recursive.analyze', { sessionId, currentStep: 'a', callStack: 'a,b' }, '/callStack'],
      [
        'recursive.analyze',
        { sessionId, currentStep: 'a', callStack: [], maxIterations: 0 },
        '/maxIterations',
      ],
      ['recursive.analyze', { sessionId, callStack: [] }, 'currentStep'],
      ['recursive.track', { sessionId, step: 'a', depth: -1 }, '/depth'],
      ['recursive.track', { sessionId, step: 'a', depth: 1.5 }, '/depth'],
      ['recursive.setMaxDepth', { sessionId, maxDepth: 0 }, '/maxDepth'],
    ] as const) {
      const error = await core.fail(method, params);
      expect(error.code, JSON.stringify(params)).toBe('INVALID_PARAMS');
      expect(JSON.stringify(error.details)).toContain(field);
    }
  });

  it('refuses tracking on an ended session', async () => {
    core = await startCore();
    const sessionId = await session();
    await core.ok('state.endSession', { sessionId });
    expect((await core.fail('recursive.track', { sessionId, step: 'a', depth: 1 })).code).toBe(
      'PRECONDITION_FAILED',
    );
    expect((await core.ok('recursive.getTrace', { sessionId })).totalIterations).toBe(0);
  });

  for (const backend of ['memory', 'sqlite'] as const) {
    it(`rebuilds the traces projection from the log exactly (${backend})`, async () => {
      core = await startCore({ backend });
      const sessionId = await session();
      await core.ok('recursive.track', { sessionId, step: 'a', depth: 1 });
      await core.ok('recursive.setMaxDepth', { sessionId, maxDepth: 2 });
      await core.fail('recursive.track', { sessionId, step: 'b', depth: 3 });
      await core.expectReplayMatches();
      expect(core.recursive.views.map((v) => v.projection)).toEqual([...RECURSIVE_PROJECTIONS]);
    });
  }
});
