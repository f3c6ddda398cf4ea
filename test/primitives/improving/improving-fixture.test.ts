import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/core/json.js';
import { IMPROVING_PROJECTIONS, improvingPrimitive } from '../../../src/primitives/improving/index.js';
import {
  seedPairs,
  shapeMismatches,
  startPrimitive,
  text,
  type PrimitiveHarness,
} from '../learning/harness.js';

let h: PrimitiveHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('improving seed fixture', () => {
  it('answers every improving.* request, in file order, with the seed field names and types', async () => {
    const pairs = (await seedPairs()).filter((p) => p.request.method.startsWith('improving.'));
    expect(pairs.map((p) => p.request.method)).toEqual([
      'improving.recordTrajectory',
      'improving.getExemplars',
      'improving.recordTrajectory',
      'improving.getExemplars',
    ]);
    h = await startPrimitive((c) => improvingPrimitive(c, { peerId: '12D3KooWG1AnmPaU7M1dTestPeer' }));
    const recorded: string[] = [];
    for (const pair of pairs) {
      const result = await h.ok(pair.request.method, pair.request.params);
      expect(shapeMismatches(pair.response.result as JsonObject, result), pair.request.method).toEqual([]);
      if (pair.request.method === 'improving.recordTrajectory') {
        expect(result['state']).toBe('SUCCESS');
        recorded.push(text(result['trajectoryId']));
      } else {
        // the exemplars recorded earlier in the fixture come back (so the shape check is not vacuous)
        const exemplars = result['exemplars'] as JsonObject[];
        expect(exemplars.length).toBeGreaterThan(0);
        expect(exemplars.map((e) => e['trajectoryId'])).toContain(recorded[recorded.length - 1]);
      }
    }
    await h.assertReplayEquals(IMPROVING_PROJECTIONS);
  });
});
