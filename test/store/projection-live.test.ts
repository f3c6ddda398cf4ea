import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  memoryEventLog,
  projectionView,
  sqliteEventLog,
  type AnyEvents,
  type EventLog,
  type Projection,
} from '../../src/store/index.js';
import { ev } from './event-log-harness.js';

// A view over the log it was built on is up to date the moment `append` resolves: the
// runtime relies on this to answer a job from its projection right after writing it.
const counter = (): Projection<number> => ({
  name: 'count',
  initial: () => 0,
  apply: (n) => n + 1,
});

describe('projection views follow their log synchronously', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  async function logs(): Promise<[string, EventLog<AnyEvents>][]> {
    const dir = await mkdtemp(join(tmpdir(), 'plexus-live-'));
    const sqlite = sqliteEventLog<AnyEvents>({ dir });
    const memory = memoryEventLog<AnyEvents>();
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    return [
      ['memory', memory],
      ['sqlite', sqlite],
    ];
  }

  it('has applied a batch when append resolves, with no await in between', async () => {
    for (const [name, log] of await logs()) {
      await log.start();
      const view = projectionView({ log, projection: counter() });
      await view.start();
      cleanup.push(async () => {
        await view.stop();
        await log.stop();
      });
      for (let i = 1; i <= 5; i++) {
        const appended = await log.append([ev('job.submitted', { i }), ev('job.started', { i })]);
        expect(view.state(), name).toBe(2 * i);
        expect(view.position(), name).toBe(appended.at(-1)!.seq);
      }
    }
  });

  it('keeps concurrent appenders consistent with the log', async () => {
    for (const [name, log] of await logs()) {
      await log.start();
      const view = projectionView({ log, projection: counter() });
      await view.start();
      cleanup.push(async () => {
        await view.stop();
        await log.stop();
      });
      await Promise.all(Array.from({ length: 40 }, (_, i) => log.append(ev('job.submitted', { i }))));
      const head = await log.head();
      expect(view.state(), name).toBe(40);
      expect(view.position(), name).toBe(head.seq);
    }
  });
});
