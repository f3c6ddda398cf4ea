import { describe, expect, it } from 'vitest';
import { PlexusError } from '../../../src/core/errors.js';
import type { Problem } from '../../../src/core/problem.js';
import { decodeEmergence, validateEmergence } from '../../../src/wire/emergence/index.js';

const valid = {
  id: '77f7b6d2-5e44-4a71-9bcb-5ddc21019f24',
  from: 'agent_b',
  to: 'agent_a',
  verb: 'HELP',
  data: { prompt: 'hi' },
};

const pointers = (problems: Problem[]): string[] => problems.map((p) => p.pointer).sort();

function decodeError(input: unknown): PlexusError {
  try {
    decodeEmergence(input);
  } catch (e) {
    if (e instanceof PlexusError) return e;
    throw e;
  }
  throw new Error('decode did not throw');
}

describe('validateEmergence', () => {
  it('accepts a valid message', () => {
    expect(validateEmergence(valid)).toEqual([]);
  });

  it.each([
    ['null', null],
    ['an array', [valid]],
    ['a string', 'HELP'],
  ])('rejects %s at the root', (_name, input) => {
    expect(validateEmergence(input)).toEqual([
      { pointer: '', message: expect.stringContaining('JSON object') },
    ]);
  });

  it.each(['id', 'from', 'to', 'verb', 'data'] as const)('requires %s', (key) => {
    const rest = Object.fromEntries(Object.entries(valid).filter(([k]) => k !== key));
    const problems = validateEmergence(rest);
    expect(problems).toEqual([
      { pointer: `/${key}`, message: expect.stringContaining(`"${key}" is missing`) },
    ]);
  });

  it('rejects an extra key without _x_, naming it', () => {
    const problems = validateEmergence({ ...valid, priority: 1 });
    expect(problems).toHaveLength(1);
    expect(problems[0]?.pointer).toBe('/priority');
    expect(problems[0]?.message).toContain('"priority"');
    expect(problems[0]?.message).toContain('_x_');
  });

  it('escapes odd key names in the pointer', () => {
    expect(pointers(validateEmergence({ ...valid, 'a/b~c': 1 }))).toEqual(['/a~1b~0c']);
  });

  it('allows _x_ extension keys with any JSON value', () => {
    expect(validateEmergence({ ...valid, _x_usage_tokens: 12, _x_cost: { usd: 1 } })).toEqual([]);
  });

  it.each([
    ['not a uuid', 'hello'],
    ['a v1 uuid', 'c232ab00-9414-11ec-b3c8-9f6bdeced846'],
    ['a wrong variant', '77f7b6d2-5e44-4a71-cbcb-5ddc21019f24'],
    ['a number', 42],
  ])('rejects an id that is %s', (_name, id) => {
    expect(pointers(validateEmergence({ ...valid, id }))).toEqual(['/id']);
  });

  it('accepts an upper-case UUID v4', () => {
    expect(validateEmergence({ ...valid, id: valid.id.toUpperCase() })).toEqual([]);
  });

  it('rejects "broadcast" as from but accepts it as to', () => {
    expect(validateEmergence({ ...valid, from: 'broadcast' })).toEqual([
      { pointer: '/from', message: expect.stringContaining('broadcast') },
    ]);
    expect(validateEmergence({ ...valid, to: 'broadcast' })).toEqual([]);
  });

  it.each([
    ['from', ''],
    ['to', ''],
    ['from', 7],
    ['to', null],
  ])('rejects %s = %j', (key, value) => {
    expect(pointers(validateEmergence({ ...valid, [key]: value }))).toEqual([`/${key}`]);
  });

  it.each(['help', 'Help', '1HELP', 'HE LP', 'HELP-ME', '', 'ÉTAT'])('rejects the verb %j', (verb) => {
    expect(pointers(validateEmergence({ ...valid, verb }))).toEqual(['/verb']);
  });

  it.each(['HELLO', 'HELP', 'STREAM', 'X', 'TASK_2'])('accepts the verb %s', (verb) => {
    expect(validateEmergence({ ...valid, verb })).toEqual([]);
  });

  it.each([
    ['a string', 'hi'],
    ['an array', []],
    ['null', null],
  ])('rejects data that is %s', (_n, data) => {
    expect(pointers(validateEmergence({ ...valid, data }))).toEqual(['/data']);
  });

  it('accepts empty data', () => {
    expect(validateEmergence({ ...valid, data: {} })).toEqual([]);
  });

  it('requires data.result on DONE and keeps other keys', () => {
    expect(pointers(validateEmergence({ ...valid, verb: 'DONE', data: { summary: 'x' } }))).toEqual([
      '/data/result',
    ]);
    expect(validateEmergence({ ...valid, verb: 'DONE', data: { result: null, summary: 'x' } })).toEqual([]);
  });

  it('requires an integer data.code and a string data.msg on ERROR', () => {
    expect(pointers(validateEmergence({ ...valid, verb: 'ERROR', data: {} }))).toEqual([
      '/data/code',
      '/data/msg',
    ]);
    expect(pointers(validateEmergence({ ...valid, verb: 'ERROR', data: { code: 4.5, msg: 3 } }))).toEqual([
      '/data/code',
      '/data/msg',
    ]);
    expect(pointers(validateEmergence({ ...valid, verb: 'ERROR', data: { code: '429', msg: 'x' } }))).toEqual(
      ['/data/code'],
    );
    expect(
      validateEmergence({ ...valid, verb: 'ERROR', data: { code: 503, msg: 'down', retry_after: 2 } }),
    ).toEqual([]);
  });

  it('reports every problem at once, each at its pointer', () => {
    const problems = validateEmergence({
      id: 'nope',
      from: 'broadcast',
      to: '',
      verb: 'help',
      data: [],
      extra: true,
    });
    expect(pointers(problems)).toEqual(['/data', '/extra', '/from', '/id', '/to', '/verb']);
  });
});

describe('decodeEmergence errors', () => {
  it('throws INVALID_REQUEST with every problem for a malformed envelope', () => {
    const err = decodeError({ ...valid, id: 'x', extra: 1 });
    expect(err.code).toBe('INVALID_REQUEST');
    expect(err.message).toContain('/extra: unknown key "extra"');
    expect(err.message).toContain('1 more problem');
    const problems = err.details?.problems as unknown as Problem[];
    expect(pointers(problems)).toEqual(['/extra', '/id']);
  });

  it('throws INVALID_PARAMS when only the data breaks its verb rules', () => {
    const err = decodeError({ ...valid, verb: 'ERROR', data: { code: 'x' } });
    expect(err.code).toBe('INVALID_PARAMS');
    expect(pointers(err.details?.problems as unknown as Problem[])).toEqual(['/data/code', '/data/msg']);
  });

  it('throws INVALID_REQUEST for a non-object', () => {
    expect(decodeError(undefined).code).toBe('INVALID_REQUEST');
  });
});
