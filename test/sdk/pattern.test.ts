import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eventFilterOf, matchesPattern, parsePattern } from '../../src/sdk/pattern.js';

describe('parsePattern', () => {
  it('reads "*", exact names and trailing ".*"', () => {
    expect(parsePattern('*')).toEqual({ kind: 'all' });
    expect(parsePattern('soul.memory.recall')).toEqual({ kind: 'exact', name: 'soul.memory.recall' });
    expect(parsePattern('soul.*')).toEqual({ kind: 'prefix', prefix: 'soul.' });
    expect(parsePattern('soul.memory.*')).toEqual({ kind: 'prefix', prefix: 'soul.memory.' });
  });

  it.each([
    '',
    'soul.*.recall',
    '*.recall',
    'soul.',
    'Soul.*',
    'soul..x',
    'soul.mem*',
    '**',
    'soul.memory.recall@1',
  ])('rejects %j', (bad) => {
    expect(() => parsePattern(bad)).toThrow(expect.objectContaining({ code: 'INVALID_PARAMS' }));
  });
});

describe('matchesPattern', () => {
  it('matches one or more segments after a prefix, never the prefix itself', () => {
    const soul = parsePattern('soul.*');
    expect(matchesPattern(soul, 'soul.memory.recall')).toBe(true);
    expect(matchesPattern(soul, 'soul.x')).toBe(true);
    expect(matchesPattern(soul, 'soul')).toBe(false);
    expect(matchesPattern(soul, 'soulmate.x')).toBe(false);
    expect(matchesPattern(soul, 'town.soul.x')).toBe(false);
    expect(matchesPattern(parsePattern('soul.memory.recall'), 'soul.memory.recall')).toBe(true);
    expect(matchesPattern(parsePattern('soul.memory.recall'), 'soul.memory.recall_all')).toBe(false);
  });

  it('agrees with a segment-wise definition on random names', () => {
    const segment = fc.stringMatching(/^[a-z][a-z0-9_]{0,4}$/);
    fc.assert(
      fc.property(
        fc.array(segment, { minLength: 1, maxLength: 3 }),
        fc.array(segment, { minLength: 1, maxLength: 4 }),
        (pre, name) => {
          const pattern = parsePattern(`${pre.join('.')}.*`);
          const expected = name.length > pre.length && pre.every((s, i) => name[i] === s);
          expect(matchesPattern(pattern, name.join('.'))).toBe(expected);
          expect(matchesPattern(parsePattern('*'), name.join('.'))).toBe(true);
        },
      ),
    );
  });
});

describe('eventFilterOf', () => {
  it('turns a pattern into an event-log filter', () => {
    expect(eventFilterOf(parsePattern('*'))).toEqual({});
    expect(eventFilterOf(parsePattern('soul.memory.stored'))).toEqual({ type: 'soul.memory.stored' });
    expect(eventFilterOf(parsePattern('soul.memory.*'))).toEqual({ typePrefix: 'soul.memory.' });
  });
});
