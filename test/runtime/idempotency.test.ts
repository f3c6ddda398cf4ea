import { afterEach, describe, expect, it } from 'vitest';
import { PlexusError } from '../../src/core/errors.js';
import { ESRP_EXTENSIONS } from '../../src/wire/esrp/extensions.js';
import { idempotencyIdentity } from '../../src/runtime/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { memoryEventLog } from '../../src/store/index.js';
import { agent, gate, type Harness, request, sleep, startRuntime } from './helpers.js';
import { until } from '../support/until.js';

function counting() {
  let calls = 0;
  const release = gate();
  let failNext: PlexusError | undefined;
  const definition = agent('counter', {
    'demo.count': (input) => {
      calls++;
      if (failNext !== undefined) {
        const error = failNext;
        failNext = undefined;
        throw error;
      }
      return { seen: input, call: calls };
    },
    'demo.wait': async (input) => {
      calls++;
      await release.promise;
      return { seen: input, call: calls };
    },
  });
  return {
    definition,
    release,
    calls: () => calls,
    failOnce(error: PlexusError) {
      failNext = error;
    },
  };
}

describe('idempotencyIdentity', () => {
  it('defaults to a hash of {to, verb, data}, scoped by tenant', () => {
    const a = idempotencyIdentity(request('demo.count', { x: 1 }, 'counter'), { face: 't' });
    const b = idempotencyIdentity(request('demo.count', { x: 1 }, 'counter'), { face: 't' });
    const c = idempotencyIdentity(request('demo.count', { x: 2 }, 'counter'), { face: 't' });
    const d = idempotencyIdentity(request('demo.count', { x: 1 }, 'counter', { tenantId: 'acme' }), {
      face: 't',
    });
    expect(a.key).toBe(b.key);
    expect(a.key).not.toBe(c.key);
    expect(d.key).toBe(`acme|${a.payloadHash}`);
    expect(a.payloadHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('prefers an explicit key (context, then the ESRP extension) and the face payload hash', () => {
    const hash = 'a'.repeat(64);
    const env = request('demo.count', 1, 'counter', {
      extensions: { [ESRP_EXTENSIONS.idempotencyKey]: 'from-ext' },
    });
    expect(idempotencyIdentity(env, { face: 'esrp', payloadHash: hash })).toEqual({
      payloadHash: hash,
      explicitKey: 'from-ext',
      key: '|from-ext',
    });
    expect(idempotencyIdentity(env, { face: 'esrp', idempotencyKey: 'ctx' }).explicitKey).toBe('ctx');
    expect(idempotencyIdentity(request('demo.count', 1), { face: 'esrp', payloadHash: hash }).key).toBe(
      `|${hash}`,
    );
    expect(() => idempotencyIdentity(env, { face: 'esrp', payloadHash: 'XYZ' })).toThrow(PlexusError);
  });
});

describe('runtime idempotency', () => {
  let h: Harness;
  afterEach(async () => {
    await h.close();
  });

  it('runs a duplicate request once and answers it with the first job’s answer', async () => {
    const c = counting();
    h = await startRuntime({ agents: [c.definition] });
    const first = await h.runtime.invoke(request('demo.count', { x: 1 }), { face: 'test' });
    const second = await h.runtime.invoke(request('demo.count', { x: 1 }), { face: 'test' });
    expect(c.calls()).toBe(1);
    expect(second.duplicate).toBe(true);
    expect(second.envelope.data).toEqual(first.envelope.data);
    expect(second.job?.id).toBe(first.job?.id);
    const other = await h.runtime.invoke(request('demo.count', { x: 2 }), { face: 'test' });
    expect(other.duplicate).toBe(false);
    expect(c.calls()).toBe(2);
  });

  it('runs concurrent duplicates once: they attach to the running job', async () => {
    const c = counting();
    h = await startRuntime({ agents: [c.definition] });
    const all = Array.from({ length: 5 }, () =>
      h.runtime.invoke(request('demo.wait', { x: 1 }), { face: 'test' }),
    );
    await until(() => c.calls() === 1);
    const asyncDup = await h.runtime.submit(request('demo.wait', { x: 1 }), { face: 'test' });
    expect(asyncDup.duplicate).toBe(true);
    c.release.open();
    const answers = await Promise.all(all);
    expect(c.calls()).toBe(1);
    expect(new Set(answers.map((a) => a.job?.id)).size).toBe(1);
    expect(answers.filter((a) => !a.duplicate)).toHaveLength(1);
    expect(answers.every((a) => a.envelope.kind === 'response')).toBe(true);
    expect(asyncDup.job.id).toBe(answers[0]?.job?.id);
  });

  it('attaches async duplicates that arrive while the first is still being accepted', async () => {
    const c = counting();
    const slowAudit = {
      name: 'slow-audit',
      before: async () => {
        await sleep(10);
        return undefined;
      },
    };
    h = await startRuntime({ agents: [c.definition], preEffects: [slowAudit] });
    const [a, b] = await Promise.all([
      h.runtime.submit(request('demo.count', { x: 9 }), { face: 'test' }),
      h.runtime.submit(request('demo.count', { x: 9 }), { face: 'test' }),
    ]);
    expect(b.job.id).toBe(a.job.id);
    expect([a.duplicate, b.duplicate].sort()).toEqual([false, true]);
    expect((await h.runtime.jobs.wait(a.job.id)).state).toBe('COMPLETED');
    expect(c.calls()).toBe(1);
  });

  it('gives a refusal by a pre-effect to the request and its attached duplicates, recording no job', async () => {
    const c = counting();
    const broke = {
      name: 'budget',
      before: async () => {
        await sleep(5);
        throw new PlexusError('BUDGET_EXCEEDED', 'no money left');
      },
    };
    h = await startRuntime({ agents: [c.definition], preEffects: [broke] });
    const [a, b] = await Promise.all([
      h.runtime.invoke(request('demo.count', { x: 3 }), { face: 'test' }),
      h.runtime.submit(request('demo.count', { x: 3 }), { face: 'test' }).catch((error: unknown) => error),
    ]);
    expect(a.envelope.data).toMatchObject({ code: 'BUDGET_EXCEEDED' });
    expect(b).toMatchObject({ code: 'BUDGET_EXCEEDED' });
    expect(c.calls()).toBe(0);
    expect(await h.log.read({ typePrefix: 'job.' })).toEqual([]);
  });

  it('rejects an explicit key reused with a different payload with CONFLICT', async () => {
    const c = counting();
    h = await startRuntime({ agents: [c.definition] });
    await h.runtime.invoke(request('demo.count', { x: 1 }), { face: 'test', idempotencyKey: 'k1' });
    const reused = await h.runtime.invoke(request('demo.count', { x: 2 }), {
      face: 'test',
      idempotencyKey: 'k1',
    });
    expect(reused.envelope.data).toMatchObject({ code: 'CONFLICT' });
    expect(c.calls()).toBe(1);
  });

  it('answers a non-retryable failure to duplicates, but runs again after a retryable one', async () => {
    const c = counting();
    h = await startRuntime({ agents: [c.definition] });
    c.failOnce(new PlexusError('INVALID_SEMANTIC', 'no'));
    const a1 = await h.runtime.invoke(request('demo.count', { x: 'a' }), { face: 'test' });
    const a2 = await h.runtime.invoke(request('demo.count', { x: 'a' }), { face: 'test' });
    expect(a1.envelope.data).toMatchObject({ code: 'INVALID_SEMANTIC' });
    expect(a2.duplicate).toBe(true);
    expect(c.calls()).toBe(1);
    c.failOnce(new PlexusError('UNAVAILABLE', 'busy'));
    const b1 = await h.runtime.invoke(request('demo.count', { x: 'b' }), { face: 'test' });
    const b2 = await h.runtime.invoke(request('demo.count', { x: 'b' }), { face: 'test' });
    expect(b1.envelope.data).toMatchObject({ code: 'UNAVAILABLE' });
    expect(b2.duplicate).toBe(false);
    expect(b2.envelope.kind).toBe('response');
    expect(c.calls()).toBe(3);
  });

  it('keeps tenants apart: the same payload from two tenants runs twice', async () => {
    const c = counting();
    h = await startRuntime({ agents: [c.definition] });
    await h.runtime.invoke(request('demo.count', { x: 1 }, 'counter', { tenantId: 'a' }), { face: 'test' });
    const other = await h.runtime.invoke(request('demo.count', { x: 1 }, 'counter', { tenantId: 'b' }), {
      face: 'test',
    });
    expect(other.duplicate).toBe(false);
    expect(c.calls()).toBe(2);
  });

  it('forgets a key after its window (at least the job timeout)', async () => {
    const c = counting();
    let clock = Date.now();
    h = await startRuntime({ agents: [c.definition], idempotencyWindowMs: 1000, now: () => clock });
    await h.runtime.invoke(request('demo.count', { x: 1 }), { face: 'test', timeoutMs: 5000 });
    clock += 3000; // inside max(window, timeout) = 5 s
    expect((await h.runtime.invoke(request('demo.count', { x: 1 }), { face: 'test' })).duplicate).toBe(true);
    clock += 60_000;
    expect((await h.runtime.invoke(request('demo.count', { x: 1 }), { face: 'test' })).duplicate).toBe(false);
    expect(c.calls()).toBe(2);
  });

  it('takes a shorter window from the request context (never shorter than the timeout)', async () => {
    const c = counting();
    let clock = Date.now();
    h = await startRuntime({ agents: [c.definition], now: () => clock }); // window 10 min
    const context = {
      face: 'test' as const,
      idempotencyKey: 'short',
      idempotencyWindowMs: 0,
      timeoutMs: 5000,
    };
    await h.runtime.invoke(request('demo.count', { x: 1 }), context);
    clock += 3000; // inside the 5 s timeout
    expect((await h.runtime.invoke(request('demo.count', { x: 1 }), context)).duplicate).toBe(true);
    clock += 10_000; // past it, far inside the runtime's 10 minutes
    expect((await h.runtime.invoke(request('demo.count', { x: 1 }), context)).duplicate).toBe(false);
    expect(c.calls()).toBe(2);
  });

  it('refuses an idempotency window that is not a whole number of ms >= 0', async () => {
    const c = counting();
    h = await startRuntime({ agents: [c.definition] });
    for (const idempotencyWindowMs of [-1, 1.5, Number.NaN]) {
      const refused = await h.runtime.invoke(request('demo.count', { x: 1 }), {
        face: 'test',
        idempotencyWindowMs,
      });
      expect(refused.envelope.kind).toBe('error');
      expect(refused.envelope.data).toMatchObject({
        code: 'INVALID_PARAMS',
        message: expect.stringMatching(/idempotency window/) as unknown,
      });
    }
    expect(c.calls()).toBe(0);
  });

  it('remembers keys across a restart (the keys are a projection of the log)', async () => {
    const c = counting();
    const log = memoryEventLog();
    h = await startRuntime({ agents: [c.definition] }, log);
    const first = await h.runtime.invoke(request('demo.count', { x: 1 }), { face: 'test' });
    await h.runtime.stop();
    const again = createRuntime({ log, agents: [c.definition] });
    await again.start();
    try {
      const second = await again.invoke(request('demo.count', { x: 1 }), { face: 'test' });
      expect(second.duplicate).toBe(true);
      expect(second.envelope.data).toEqual(first.envelope.data);
      expect(c.calls()).toBe(1);
      expect((await again.verify()).every((check) => check.ok)).toBe(true);
    } finally {
      await again.stop();
    }
  });
});
