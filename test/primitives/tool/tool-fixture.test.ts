/**
 * The seed's own tool.* JSON-RPC examples (test/fixtures/hyperspace-seed-examples), run through an in-process runtime:
 * every request's params are accepted as written, and every result has the seed's field names
 * with the seed's JSON types (values depend on state and may differ).
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../../src/core/json.js';
import { memoryEventLog } from '../../../src/store/index.js';
import { registerWebSearch, startToolHarness, type ToolHarness } from './tool-harness.js';

interface Pair {
  readonly request: { method: string; params: JsonObject; id: number };
  readonly response: { result: JsonObject };
}

const fixture = JSON.parse(
  readFileSync(
    new URL('../../fixtures/hyperspace-seed-examples/hyperspace-seed-jsonrpc-examples.json', import.meta.url),
    'utf8',
  ),
) as { pairs: Pair[] };
const toolPairs = fixture.pairs.filter((p) => p.request.method.startsWith('tool.'));

function jsonType(v: JsonValue): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/**
 * Where `actual` departs from the shape of `expected`: each field of an expected object is
 * present with the same JSON type; arrays are non-empty when the expected one is, and each
 * element has the shape of the expected first element.
 */
function shapeProblems(expected: JsonValue, actual: JsonValue | undefined, at = ''): string[] {
  if (actual === undefined) return [`${at || '/'}: missing`];
  if (jsonType(expected) !== jsonType(actual)) {
    return [`${at || '/'}: expected ${jsonType(expected)}, got ${jsonType(actual)}`];
  }
  if (Array.isArray(expected) && Array.isArray(actual)) {
    const first = expected[0];
    if (first === undefined) return [];
    if (actual.length === 0) return [`${at}: expected a non-empty array`];
    return actual.flatMap((item, i) => shapeProblems(first, item, `${at}/${i}`));
  }
  if (typeof expected === 'object' && expected !== null && !Array.isArray(expected)) {
    const a = actual as JsonObject;
    return Object.entries(expected).flatMap(([k, v]) => shapeProblems(v, a[k], `${at}/${k}`));
  }
  return [];
}

let h: ToolHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('tool primitive on the seed examples', () => {
  it('has the three tool.* examples', () => {
    expect(toolPairs.map((p) => p.request.method)).toEqual(['tool.discover', 'tool.discover', 'tool.invoke']);
  });

  it('answers every tool.* example request with the seed field names and types', async () => {
    h = await startToolHarness(memoryEventLog());
    const toolId = await registerWebSearch(h);
    for (const pair of toolPairs) {
      const params = { ...pair.request.params };
      // The seed's toolId names a tool on its example node; here the tool got its own id.
      if (pair.request.method === 'tool.invoke') params['toolId'] = toolId;
      const result = await h.ok(pair.request.method, params);
      expect(
        shapeProblems(pair.response.result, result),
        `${pair.request.method} #${pair.request.id}`,
      ).toEqual([]);
    }
  });

  it('the shape check notices a wrong type and a missing field', () => {
    const expected = { tools: [{ id: 'x', reputation: 0.9 }] };
    expect(shapeProblems(expected, { tools: [{ id: 'y', reputation: '0.9' }] })).toEqual([
      '/tools/0/reputation: expected number, got string',
    ]);
    expect(shapeProblems(expected, { tools: [] })).toEqual(['/tools: expected a non-empty array']);
    expect(shapeProblems(expected, { tools: [{ reputation: 1 }] })).toEqual(['/tools/0/id: missing']);
  });
});
