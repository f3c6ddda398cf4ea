/**
 * The `era` pipeline step (seed 002 §10): deprecated eras answer with warnings, sunset eras
 * (by status or by the runtime's clock) are refused before their handler runs, with the
 * replacement as the fallback verb.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ErrorData } from '../../src/core/errors.js';
import type { VerbSpec } from '../../src/core/records/verb-spec.js';
import { validateEnvelope } from '../../src/core/records/envelope-schema.js';
import {
  WARNINGS_EXTENSION,
  dayStartMs,
  eraStatusAt,
  eraWarning,
  sunsetError,
  warningsOf,
} from '../../src/runtime/pipeline/era.js';
import { agent, cap, request, spec, startRuntime, type Harness } from './helpers.js';

const DAY = 86_400_000;
/** The runtime's clock in these tests: 2026-03-01T12:00:00Z. */
const NOW = Date.parse('2026-03-01T12:00:00Z');

const deprecated = (name: string, extra: Partial<VerbSpec['deprecation']> = {}): VerbSpec =>
  spec(name, {
    status: 'deprecated',
    deprecation: {
      deprecatedAt: '2026-01-01',
      sunsetAt: '2026-12-01',
      replacement: `${name}@2`,
      migration: 'https://example.test/migrate',
      ...extra,
    },
  });

const sunset = (name: string): VerbSpec =>
  spec(name, {
    status: 'sunset',
    deprecation: { deprecatedAt: '2025-01-01', sunsetAt: '2025-06-01', replacement: 'legacy.fresh@2' },
  });

describe('era status by the clock', () => {
  it('reads dates as the start of the UTC day', () => {
    expect(dayStartMs('2026-03-01')).toBe(Date.parse('2026-03-01T00:00:00Z'));
    expect(dayStartMs('03/01/2026')).toBeNaN();
  });

  it('advances a declared status by its dates', () => {
    const stable = spec('a.b');
    expect(eraStatusAt(stable, NOW)).toBe('stable');
    const scheduled = spec('a.b', { deprecation: { deprecatedAt: '2026-03-02', sunsetAt: '2026-04-01' } });
    expect(eraStatusAt(scheduled, NOW)).toBe('stable');
    expect(eraStatusAt(scheduled, NOW + DAY)).toBe('deprecated');
    expect(eraStatusAt(scheduled, Date.parse('2026-04-01T00:00:00Z'))).toBe('sunset');
    expect(eraStatusAt(deprecated('a.b'), NOW)).toBe('deprecated');
    expect(eraStatusAt(deprecated('a.b', { sunsetAt: '2026-03-01' }), NOW)).toBe('sunset');
    expect(eraStatusAt(sunset('a.b'), 0)).toBe('sunset');
  });

  it('writes the warning of seed 002 §10.3 and the sunset refusal with its hints', () => {
    expect(eraWarning(deprecated('old.greet'), NOW)).toEqual({
      type: 'deprecation',
      verb: 'old.greet@1',
      message:
        'old.greet@1 is deprecated since 2026-01-01; it stops being served on 2026-12-01; use old.greet@2 (migration: https://example.test/migrate)',
      deprecated_at: '2026-01-01',
      sunset_at: '2026-12-01',
      migration_guide: 'https://example.test/migrate',
      replacement: 'old.greet@2',
    });
    const error = sunsetError(sunset('legacy.gone'), 'legacy.gone');
    expect(error.code).toBe('VERB_SUNSET');
    expect(error.message).toContain('call legacy.fresh@2 instead');
    expect(error.hints).toMatchObject({ fallbackVerb: 'legacy.fresh@2', verb: 'legacy.gone' });
    expect(error.details).toEqual({
      verb: 'legacy.gone@1',
      sunset_at: '2025-06-01',
      replacement: 'legacy.fresh@2',
    });
  });
});

describe('the era step in the runtime', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('answers a deprecated era with its warning on the envelope and the invocation', async () => {
    h = await startRuntime({
      now: () => NOW,
      agents: [agent('old', { 'old.greet': () => 'hello' }, { verbs: [deprecated('old.greet')] })],
    });
    const answer = await h.runtime.invoke(request('old.greet', null), { face: 'internal' });
    expect(answer.envelope.kind).toBe('response');
    expect(answer.envelope.data).toBe('hello');
    expect(answer.warnings).toHaveLength(1);
    expect(answer.warnings?.[0]).toMatchObject({ verb: 'old.greet@1', replacement: 'old.greet@2' });
    expect(warningsOf(answer.envelope)).toEqual(answer.warnings);
    expect(validateEnvelope(answer.envelope)).toEqual([]);
    const submitted = await h.runtime.submit(request('old.greet', null), { face: 'internal' });
    expect(submitted.warnings?.[0]?.verb).toBe('old.greet@1');
    await h.runtime.jobs.wait(submitted.job.id);
    expect(warningsOf(await h.runtime.jobs.answer(submitted.job.id))[0]?.verb).toBe('old.greet@1');
  });

  it('adds no warning to a stable era or a verb without a spec', async () => {
    h = await startRuntime({
      now: () => NOW,
      agents: [
        agent('fine', { 'fine.greet': () => 1 }, { verbs: [spec('fine.greet')] }),
        agent('bare', { 'bare.greet': () => 2 }),
      ],
    });
    for (const verb of ['fine.greet', 'bare.greet']) {
      const answer = await h.runtime.invoke(request(verb, null), { face: 'internal' });
      expect(answer.envelope.kind).toBe('response');
      expect(answer.warnings).toBeUndefined();
      expect(answer.envelope.extensions?.[WARNINGS_EXTENSION]).toBeUndefined();
    }
  });

  it('refuses a sunset era before its handler runs, naming the fallback verb', async () => {
    let ran = 0;
    h = await startRuntime({
      now: () => NOW,
      agents: [
        agent(
          'legacy',
          {
            'legacy.gone': () => {
              ran++;
              return 'should not run';
            },
          },
          { verbs: [sunset('legacy.gone')] },
        ),
      ],
    });
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    // bad input too: the era is refused first, since no input makes a sunset era answer
    const answer = await h.runtime.invoke(request('legacy.gone', { junk: true }, 'legacy', { traceparent }), {
      face: 'internal',
    });
    expect(ran).toBe(0);
    expect(answer.envelope.kind).toBe('error');
    const data = answer.envelope.data as unknown as ErrorData;
    expect(data.code).toBe('VERB_SUNSET');
    expect(data.hints).toEqual({
      fallbackVerb: 'legacy.fresh@2',
      verb: 'legacy.gone',
      suggestedAction: 'Call legacy.fresh@2 instead.',
      traceId: '0af7651916cd43dd8448eb211c80319c',
    });
    expect(validateEnvelope(answer.envelope)).toEqual([]);
    await expect(h.runtime.submit(request('legacy.gone', null), { face: 'internal' })).rejects.toMatchObject({
      code: 'VERB_SUNSET',
    });
    expect(h.observer.spans.some((s) => s.name === 'runtime.era' && s.errorCode === 'VERB_SUNSET')).toBe(
      true,
    );
  });

  it('refuses a deprecated era once the runtime clock passes its sunset date', async () => {
    let now = NOW;
    h = await startRuntime({
      now: () => now,
      agents: [agent('old', { 'old.greet': () => 'hello' }, { verbs: [deprecated('old.greet')] })],
    });
    expect((await h.runtime.invoke(request('old.greet', null), { face: 'internal' })).envelope.kind).toBe(
      'response',
    );
    now = Date.parse('2026-12-01T00:00:00Z');
    const answer = await h.runtime.invoke(request('old.greet', null), { face: 'internal' });
    expect(answer.envelope.data).toMatchObject({
      code: 'VERB_SUNSET',
      hints: { fallbackVerb: 'old.greet@2' },
    });
  });

  it('routes a capability request around a sunset candidate to a live one', async () => {
    h = await startRuntime({
      now: () => NOW,
      agents: [
        agent('a-old', { 'x.run': () => 'old' }, { verbs: [sunset('x.run')] }),
        agent('b-new', { 'x.run': () => 'new' }, { verbs: [spec('x.run', { version: 2 })] }),
      ],
    });
    const answer = await h.runtime.invoke(request('x.run', null), { face: 'internal' });
    expect(answer.envelope.data).toBe('new');
    const direct = await h.runtime.invoke(request('x.run', null, 'a-old'), { face: 'internal' });
    expect(direct.envelope.data).toMatchObject({ code: 'VERB_SUNSET' });
  });

  it('judges `name@version` by that era’s spec only', async () => {
    h = await startRuntime({
      now: () => NOW,
      agents: [
        agent(
          'multi',
          { 'm.do@1': () => 'one', 'm.do@2': () => 'two' },
          { capabilities: [cap('m.do@1'), cap('m.do@2')], verbs: [deprecated('m.do')] },
        ),
      ],
    });
    const one = await h.runtime.invoke(request('m.do@1', null, 'multi'), { face: 'internal' });
    expect(one.warnings?.[0]?.verb).toBe('m.do@1');
    const two = await h.runtime.invoke(request('m.do@2', null, 'multi'), { face: 'internal' });
    expect(two.envelope.data).toBe('two');
    expect(two.warnings).toBeUndefined();
  });
});
