import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/core/json.js';
import { seededRandom } from '../../../src/primitives/memory/product-quantizer.js';
import { memoryEventLog, type EventLog } from '../../../src/store/index.js';
import { startMemoryCore } from './memory-harness.js';
import { openEventLog } from '../../../src/store/event-map.js';

/** Distinct sentences of made-up words (seeded), one a memory. */
function sentences(n: number): string[] {
  const random = seededRandom(42);
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  const word = (): string =>
    Array.from({ length: 4 + Math.floor(random() * 5) }, () => letters[Math.floor(random() * 26)]).join('');
  return Array.from({ length: n }, (_, i) => `note ${i} ${Array.from({ length: 12 }, word).join(' ')}`);
}

/** A started log holding `contents` as `memory.stored` events (ids mem-0…), as a restarted node finds it. */
async function logOf(contents: readonly string[]): Promise<EventLog> {
  const log = memoryEventLog();
  await log.start();
  for (let i = 0; i < contents.length; i += 500) {
    await openEventLog(log).append(
      contents.slice(i, i + 500).map((content, j) => ({
        type: 'memory.stored',
        data: {
          id: `mem-${i + j}`,
          content,
          sessionId: null,
          metadata: {},
          tier: 'working',
          peerId: 'local',
          replicas: [],
          createdAt: '2026-03-17T08:30:00.000Z',
          embedder: 'hashed-ngram-v1/256',
        },
      })),
    );
  }
  return log;
}

describe('memory primitive index in the background', () => {
  it('answers a search while its index trains after start, then from the trained index', async () => {
    const contents = sentences(3000);
    const log = await logOf(contents);
    const core = await startMemoryCore({
      log,
      init: { index: { trainAt: 256, sampleSize: 2048, iterations: 2 } },
    });
    try {
      const index = core.memory.searchIndex();
      expect(index?.size).toBe(3000);
      // start returned with the training still to do: it runs in slices, not in start()
      expect(index?.stats()).toMatchObject({ building: true, trained: false, trainings: 0 });
      const events: string[] = [];
      const trained = index!.whenIdle().then(() => {
        events.push(`trained ${index!.stats().trainings}`);
      });
      const query = { query: contents[1234], limit: 3 };
      const during = await core.ok('memory.search', query);
      events.push('searched');
      expect((during.memories as JsonObject[])[0]).toMatchObject({ id: 'mem-1234', similarity: 1 });
      await trained;
      expect(events).toEqual(['searched', 'trained 1']);
      expect(index!.stats()).toMatchObject({ building: false, trained: true, coded: 3000 });
      const after = await core.ok('memory.search', query);
      expect((after.memories as JsonObject[])[0]).toMatchObject({ id: 'mem-1234', similarity: 1 });
      const stored = await core.ok('memory.store', { content: 'a fresh memory about quokka migrations' });
      const fresh = await core.ok('memory.search', { query: 'quokka migrations', limit: 1 });
      expect((fresh.memories as JsonObject[])[0]?.id).toBe(stored.id);
      expect(index!.stats().coded).toBe(3001); // coded as it was stored
    } finally {
      await core.close();
      await log.stop();
    }
  });

  it('stops the background training when the primitive stops', async () => {
    const log = await logOf(sentences(600));
    const core = await startMemoryCore({ log, init: { index: { trainAt: 256 } } });
    try {
      const index = core.memory.searchIndex()!;
      expect(index.stats().building).toBe(true);
      await core.stopPrimitive();
      await index.whenIdle();
      expect(index.stats()).toMatchObject({ building: false, trained: false, trainings: 0 });
    } finally {
      await core.close();
      await log.stop();
    }
  });
});
