import { readFileSync } from 'node:fs';
import { beforeEach, describe, expect, it } from 'vitest';
import { handleJsonRpcText } from '../../../src/wire/jsonrpc/index.js';
import { calls, specDispatch } from './spec-dispatcher.js';

interface SpecCase {
  readonly name: string;
  readonly request: string;
  readonly response: unknown;
}

const fixture = JSON.parse(
  readFileSync(new URL('../../fixtures/jsonrpc-2.0/spec_section7_examples.json', import.meta.url), 'utf8'),
) as { cases: SpecCase[] };

/** Order-free comparison key of one response object. */
const key = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) =>
    x !== null && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : 1)))
      : x,
  );

describe('JSON-RPC 2.0 spec §7 examples', () => {
  beforeEach(() => {
    calls.length = 0;
  });

  it('covers all fifteen cases of the fixture', () => {
    expect(fixture.cases).toHaveLength(15);
  });

  it.each(fixture.cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const reply = await handleJsonRpcText(c.request, specDispatch);
    if (c.response === null) {
      expect(reply).toBeUndefined();
      return;
    }
    expect(reply).toBeTypeOf('string');
    const got = JSON.parse(reply ?? 'null') as unknown;
    if (Array.isArray(c.response)) {
      expect(Array.isArray(got)).toBe(true);
      // A batch answer may come in any order (spec §6): compare as multisets.
      expect((got as unknown[]).map(key).sort()).toEqual(c.response.map(key).sort());
    } else {
      expect(got).toEqual(c.response);
    }
  });

  it('runs notifications even though it answers nothing', async () => {
    const batch = fixture.cases.find((c) => c.name === 'batch, all notifications');
    expect(await handleJsonRpcText(batch?.request ?? '', specDispatch)).toBeUndefined();
    expect(calls).toEqual(['notify_sum', 'notify_hello']);
  });
});
