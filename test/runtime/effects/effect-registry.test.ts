/**
 * The effect-handler contract: one handler per kind, `before` in order and `after` in
 * reverse around the verb's handler, a refusal stopping the verb's handler, an `after`
 * failure failing a successful leg.
 */
import { describe, expect, it } from 'vitest';
import { PlexusError } from '../../../src/core/errors.js';
import type { Effects } from '../../../src/core/records/effects.js';
import {
  createEffectScope,
  effectRegistry,
  effectRunner,
  emitMatches,
  readerIn,
  reservedTypes,
  resourceMatches,
  type EffectHandler,
  type EffectLeg,
  type LegResult,
} from '../../../src/runtime/index.js';
import { request, spec } from '../helpers.js';

const VERB = 'demo.effects.run';

function leg(): EffectLeg {
  return {
    jobId: 'job-1',
    attempt: 1,
    agentId: 'a1',
    verb: VERB,
    envelope: request(VERB, {}),
    principal: undefined,
    signal: () => new AbortController().signal,
  };
}

function recorder(
  effect: EffectHandler['effect'],
  log: string[],
  refuse = false,
  failAfter = false,
): EffectHandler {
  return {
    effect,
    before(call) {
      log.push(`before ${effect} [${call.resources.join(',')}]`);
      if (refuse) throw new PlexusError('BUDGET_EXCEEDED', `${effect} refused`);
      return `memo-${effect}`;
    },
    after(_call, outcome, memo) {
      log.push(`after ${effect} ${outcome.ok ? 'ok' : outcome.error.code} ${String(memo)}`);
      if (failAfter) throw new PlexusError('UNAVAILABLE', `${effect} could not be recorded`);
    },
  };
}

function runnerWith(handlers: EffectHandler[], effects: Effects) {
  const s = spec(VERB, { effects });
  return effectRunner({ registry: effectRegistry(handlers), verbSpec: () => s });
}

const ok = (log: string[]) => (): Promise<LegResult> => {
  log.push('handler');
  return Promise.resolve({ agent: 'a1', ok: true, data: { done: true } });
};

describe('effectRegistry', () => {
  it('keeps one handler per kind, in order', () => {
    const a = recorder('charges', []);
    const b = recorder('audits', []);
    const registry = effectRegistry([a, b]);
    expect(registry.handlers).toEqual([a, b]);
    expect(registry.get('audits')).toBe(b);
    expect(registry.get('emits')).toBeUndefined();
  });

  it('refuses an unknown kind, a kind twice, and a handler without phases', () => {
    expect(() => effectRegistry([{ effect: 'bills' as never, after: () => undefined }])).toThrow(
      /not an effect/,
    );
    expect(() => effectRegistry([recorder('charges', []), recorder('charges', [])])).toThrow(
      /two effect handlers for charges/,
    );
    expect(() => effectRegistry([{ effect: 'reads' }])).toThrow(/neither before nor after/);
  });
});

describe('effectRunner', () => {
  it('runs before phases in order, the handler, then after phases in reverse with their memos', async () => {
    const log: string[] = [];
    const runner = runnerWith([recorder('charges', log), recorder('audits', log)], {
      charges: ['tokens'],
      audits: ['decision'],
    });
    const result = await runner.run(leg(), ok(log));
    expect(result).toEqual({ agent: 'a1', ok: true, data: { done: true } });
    expect(log).toEqual([
      'before charges [tokens]',
      'before audits [decision]',
      'handler',
      'after audits ok memo-audits',
      'after charges ok memo-charges',
    ]);
  });

  it('runs only the handlers of declared effects', async () => {
    const log: string[] = [];
    const runner = runnerWith([recorder('charges', log), recorder('audits', log)], { audits: ['x'] });
    await runner.run(leg(), ok(log));
    expect(log).toEqual(['before audits [x]', 'handler', 'after audits ok memo-audits']);
  });

  it('fails the leg before the handler when a before phase refuses; earlier phases see the failure', async () => {
    const log: string[] = [];
    const runner = runnerWith([recorder('charges', log), recorder('audits', log, true)], {
      charges: ['tokens'],
      audits: ['x'],
    });
    const result = await runner.run(leg(), ok(log));
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error.code).toBe('BUDGET_EXCEEDED');
    expect(log).toEqual([
      'before charges [tokens]',
      'before audits [x]',
      'after charges BUDGET_EXCEEDED memo-charges',
    ]);
  });

  it('turns a successful leg into a failure when an after phase throws; later phases see it', async () => {
    const log: string[] = [];
    const runner = runnerWith([recorder('charges', log), recorder('audits', log, false, true)], {
      charges: ['tokens'],
      audits: ['x'],
    });
    const result = await runner.run(leg(), ok(log));
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error.message).toMatch(
      /audits effect of demo\.effects\.run could not be carried out/,
    );
    expect(log.at(-1)).toBe('after charges UNAVAILABLE memo-charges');
  });

  it('passes a failed handler to the after phases unchanged', async () => {
    const log: string[] = [];
    const runner = runnerWith([recorder('charges', log)], { charges: ['tokens'] });
    const result = await runner.run(leg(), () =>
      Promise.resolve({ agent: 'a1', ok: false, error: new PlexusError('INVALID_SEMANTIC', 'bad input') }),
    );
    expect(!result.ok && result.error.code).toBe('INVALID_SEMANTIC');
    expect(log).toEqual(['before charges [tokens]', 'after charges INVALID_SEMANTIC memo-charges']);
  });

  it('fails a leg whose handler caught an undeclared emit', async () => {
    const runner = runnerWith([], { emits: ['demo.done'] });
    const result = await runner.run(leg(), (scope) => {
      scope.emit('demo.done', { n: 1 });
      expect(() => {
        scope.emit('demo.other', {});
      }).toThrow(/does not declare/);
      return Promise.resolve({ agent: 'a1', ok: true, data: null });
    });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error.code).toBe('FORBIDDEN');
    expect(!result.ok && result.error.details).toMatchObject({
      verb: VERB,
      effect: 'emits',
      resource: 'demo.other',
    });
  });
});

describe('effect scope', () => {
  const scope = (effects: Effects, reserved?: (type: string) => boolean) =>
    createEffectScope({
      verb: VERB,
      agentId: 'a1',
      declared: effects,
      envelope: request(VERB, {}),
      principal: undefined,
      signal: () => new AbortController().signal,
      readerOf: (resource) => readerIn(new Map([['notes', () => ({ from: 'notes' })]]), resource),
      ...(reserved === undefined ? {} : { reserved }),
    });

  it('matches declared resources exactly, by *, and by a trailing * prefix', async () => {
    expect(resourceMatches('notes/*', 'notes/today')).toBe(true);
    expect(resourceMatches('notes/*', 'notebook')).toBe(false);
    expect(resourceMatches('*', 'anything')).toBe(true);
    expect(emitMatches('event/demo.done', 'demo.done')).toBe(true);
    expect(emitMatches('demo.*', 'demo.done')).toBe(true);
    expect(emitMatches('demo.done', 'demo.other')).toBe(false);
    await expect(scope({ reads: ['notes/*'] }).read('notes/today')).resolves.toEqual({ from: 'notes' });
  });

  it('answers NOT_FOUND for a declared resource no reader serves, and refuses a bad name', async () => {
    await expect(scope({ reads: ['files/*'] }).read('files/a')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(scope({ reads: ['*'] }).read('')).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
  });

  it('refuses a malformed event type, data that is not JSON, and a reserved type', () => {
    const s = scope({ emits: ['*'] }, reservedTypes([]));
    expect(() => {
      s.emit('Not A Type', {});
    }).toThrow(/dotted lower-case words/);
    expect(() => {
      s.emit('demo.bad', { n: Number.NaN });
    }).toThrow(/not JSON/);
    expect(() => {
      s.emit('ledger.credited', { amount: 1 });
    }).toThrow(/only the node itself writes/);
    expect(s.violation?.code).toBe('FORBIDDEN');
    expect(s.emitted).toEqual([]);
  });
});
