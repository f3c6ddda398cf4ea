import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { createNode, jobsOfDataDir, replayDataDir } from '../../src/node/index.js';

const dirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'plexus-offline-'));
  dirs.push(dir);
  return dir;
}

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A data directory with a few finished jobs, its node stopped (so snapshots are saved). */
async function populated(): Promise<{ dataDir: string; jobIds: string[] }> {
  const dataDir = tempDir();
  const node = createNode({ dataDir, port: 0, dev: true, demo: true, primitives: false });
  await node.start();
  const jobIds: string[] = [];
  for (const expression of ['1+1', '2*3', '1/0']) {
    const { job } = await node.runtime.submit(
      {
        id: randomUUID(),
        kind: 'request',
        from: 't',
        to: 'math',
        verb: 'math.evaluate',
        data: { expression },
      },
      { face: 'internal' },
    );
    jobIds.push(job.id);
    await node.runtime.jobs.wait(job.id);
  }
  await node.stop();
  return { dataDir, jobIds };
}

describe('replayDataDir', () => {
  it('verifies the chain, rebuilds every projection and matches the stored snapshots', async () => {
    const { dataDir } = await populated();
    const report = await replayDataDir(dataDir, { verify: true });
    expect(report.ok).toBe(true);
    expect(report.events).toBeGreaterThan(10);
    const runtime = report.projections.slice(0, 3);
    expect(runtime.map((p) => [p.name, p.entries])).toEqual([
      ['runtime.registry', 6], // the demo agents registered through the log (tck included)
      ['runtime.jobs', 3],
      ['runtime.idempotency', 3],
    ]);
    for (const p of runtime) {
      expect(p.checks.map((c) => [c.against, c.check.ok])).toEqual([
        ['snapshot', true],
        ['resume', true],
      ]);
    }
    // Revocations and the Hyperspace primitives' projections (none used here: empty) keep no snapshots.
    // The budget ledger (empty here: no verb charges) keeps a snapshot like the runtime's own.
    const ledger = report.projections.find((p) => p.name === 'runtime.ledger');
    expect(ledger?.checks.map((c) => [c.against, c.check.ok])).toEqual([
      ['snapshot', true],
      ['resume', true],
    ]);
    const primitives = report.projections.slice(3).filter((p) => p !== ledger);
    expect(primitives[0]?.name).toBe('ucan.revocations');
    expect(primitives.map((p) => p.name)).toContain('state.sessions');
    for (const p of primitives) {
      expect(p.entries).toBe(0);
      expect(p.checks.map((c) => [c.against, c.check.ok])).toEqual([['resume', true]]);
    }
  });

  it('names the first event whose content was altered', async () => {
    const { dataDir } = await populated();
    const db = new Database(join(dataDir, 'events.db'));
    db.prepare("UPDATE events SET data = json_set(data, '$.tampered', 1) WHERE seq = 7").run();
    db.close();
    const report = await replayDataDir(dataDir, { verify: true });
    expect(report.ok).toBe(false);
    expect(report.problem).toMatch(/^the hash chain breaks at event seq 7 \(cid-mismatch\)/);
  });

  it('names a projection whose stored snapshot does not match the log', async () => {
    const { dataDir } = await populated();
    const file = join(dataDir, 'projections', 'runtime.jobs.json');
    const snapshot = JSON.parse(readFileSync(file, 'utf8')) as { state: unknown };
    snapshot.state = [];
    writeFileSync(file, JSON.stringify(snapshot));
    const report = await replayDataDir(dataDir, { verify: true });
    expect(report.ok).toBe(false);
    expect(report.problem).toMatch(
      /^projection runtime\.jobs: the stored snapshot at seq \d+ does not match/,
    );
    // Without --verify the snapshot is not looked at.
    expect((await replayDataDir(dataDir)).ok).toBe(true);
  });

  it('refuses a directory without an event log', async () => {
    await expect(replayDataDir(tempDir())).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringMatching(/no event log at .*events\.db/),
    });
  });
});

describe('jobsOfDataDir', () => {
  it('lists the jobs of the log, oldest first', async () => {
    const { dataDir, jobIds } = await populated();
    const jobs = await jobsOfDataDir(dataDir);
    expect(jobs.map((j) => j.id)).toEqual(jobIds);
    expect(jobs.map((j) => j.state)).toEqual(['COMPLETED', 'COMPLETED', 'FAILED']);
  });
});
