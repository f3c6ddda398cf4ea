import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PlexusError } from '../../../src/core/errors.js';
import {
  decodeEmergence,
  emergenceCodec,
  emergenceErrorToPlexus,
  encodeEmergence,
  validateEmergence,
} from '../../../src/wire/emergence/index.js';

interface SeedFixture {
  readonly examples: readonly Record<string, unknown>[];
}

const fixture = JSON.parse(
  readFileSync(new URL('../../fixtures/emergence-seed-examples/seed_examples.json', import.meta.url), 'utf8'),
) as SeedFixture;

const example = (i: number): Record<string, unknown> => {
  const e = fixture.examples[i];
  if (e === undefined) throw new Error(`fixture has no example ${i}`);
  return e;
};

describe('Emergence seed examples (seed 000)', () => {
  it('has the four examples this suite judges', () => {
    expect(fixture.examples).toHaveLength(4);
  });

  it('§1 envelope example (HELP) decodes to a request and encodes back exactly', () => {
    const wire = example(0);
    const env = decodeEmergence(wire);
    expect(env).toEqual({
      id: '550e8400-e29b-41d4-a716-446655440000',
      kind: 'request',
      from: 'agent_b_7df3',
      to: 'agent_a_912c',
      verb: 'HELP',
      data: { prompt: 'Translate hello to French' },
    });
    expect(encodeEmergence(env)).toEqual(wire);
  });

  it('§4.1 request (HELP) decodes to a request and encodes back exactly', () => {
    const wire = example(1);
    const env = decodeEmergence(wire);
    expect(env.kind).toBe('request');
    expect(env.verb).toBe('HELP');
    expect(env.id).toBe('77f7b6d2-5e44-4a71-9bcb-5ddc21019f24');
    expect(emergenceCodec.encode(env)).toEqual(wire);
  });

  it('§4.2 DONE example is rejected: it carries {summary} instead of {result} (D4)', () => {
    const wire = example(2);
    expect(validateEmergence(wire)).toEqual([
      { pointer: '/data/result', message: expect.stringContaining('data.result') as string },
    ]);
    let thrown: unknown;
    try {
      decodeEmergence(wire);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(PlexusError);
    const err = thrown as PlexusError;
    expect(err.code).toBe('INVALID_PARAMS');
    expect(err.message).toContain('/data/result');
    expect(err.details?.problems).toEqual([
      { pointer: '/data/result', message: expect.any(String) as string },
    ]);
  });

  it('§4.2 DONE example decodes once its payload is moved under result', () => {
    const wire = example(2);
    const fixed = { ...wire, data: { result: (wire.data as { summary: string }).summary } };
    expect(decodeEmergence(fixed).kind).toBe('response');
  });

  it('§4.3 ERROR example decodes to an error with the wire {code, msg} and reads as RATE_LIMITED', () => {
    const wire = example(3);
    const env = decodeEmergence(wire);
    expect(env.kind).toBe('error');
    expect(env.data).toEqual({ code: 429, msg: 'Upstream quota exceeded' });
    expect(encodeEmergence(env)).toEqual(wire);
    const err = emergenceErrorToPlexus(env);
    expect(err.code).toBe('RATE_LIMITED');
    expect(err.retryable).toBe(true);
    expect(err.message).toBe('Upstream quota exceeded');
    expect(err.details).toEqual({ emergenceCode: 429 });
  });

  it('the request and its answers share one id (the reply reuses it, D4)', () => {
    expect(new Set([example(1).id, example(2).id, example(3).id]).size).toBe(1);
  });
});
