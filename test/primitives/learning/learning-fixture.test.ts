import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/core/json.js';
import { LEARNING_PROJECTIONS, learningPrimitive } from '../../../src/primitives/learning/index.js';
import { sqliteEventLog } from '../../../src/store/index.js';
import { tempDir } from '../../runtime/helpers.js';
import { seedPairs, shapeMismatches, startPrimitive, type PrimitiveHarness } from './harness.js';

let h: PrimitiveHarness | undefined;
let removeDir: (() => Promise<void>) | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  await removeDir?.();
  removeDir = undefined;
});

describe('learning seed fixture', () => {
  it('answers every learning.* request of the fixture with the seed field names and types', async () => {
    const pairs = (await seedPairs()).filter((p) => p.request.method.startsWith('learning.'));
    expect(pairs.length).toBeGreaterThan(0);
    h = await startPrimitive((c) => learningPrimitive(c));
    for (const pair of pairs) {
      const result = await h.ok(pair.request.method, pair.request.params);
      expect(shapeMismatches(pair.response.result as JsonObject, result), pair.request.method).toEqual([]);
      if (pair.request.method === 'learning.reflect') {
        // bullets came back, so the item shape above was really checked
        expect((result['newBullets'] as JsonObject[]).length).toBeGreaterThan(0);
      }
    }
  });
});

describe('learning on a SQLite log', () => {
  it('keeps playbooks across a restart and replays to the same state', async () => {
    const { dir, remove } = await tempDir();
    removeDir = remove;
    const first = await startPrimitive((c) => learningPrimitive(c), { log: sqliteEventLog({ dir }) });
    await first.ok('learning.addBullet', {
      playbookId: 'pb',
      section: 'str',
      content: 'Use analyst reports.',
    });
    await first.ok('learning.feedback', { playbookId: 'pb', bulletId: 'str-00001', helpful: true });
    await first.ok('learning.reflect', {
      playbookId: 'pb',
      execution: {
        steps: [
          { action: 'search', tool: 'web', duration: 10 },
          { action: 'sum', duration: 30 },
        ],
        outcome: 'success',
      },
    });
    const before = await first.ok('learning.getPlaybook', { playbookId: 'pb' });
    await first.assertReplayEquals(LEARNING_PROJECTIONS);
    await first.close();
    h = await startPrimitive((c) => learningPrimitive(c), { log: sqliteEventLog({ dir }) });
    expect(await h.ok('learning.getPlaybook', { playbookId: 'pb' })).toEqual(before);
    expect(before['version']).toBe(3);
    const next = await h.ok('learning.addBullet', { playbookId: 'pb', section: 'str', content: 'Another.' });
    // the reflection added str-00002 (the path) and str-00003 (sum is the bottleneck)
    const ids = (before['bullets'] as JsonObject[]).map((b) => b['id']);
    expect(ids).toEqual(['str-00001', 'str-00002', 'str-00003', 'cal-00001']);
    expect(next['bulletId']).toBe('str-00004');
  });
});
