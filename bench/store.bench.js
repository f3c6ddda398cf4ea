// The event log: appends per second through Plexus's SQLite log (group commit, validation,
// hashing, hash chain) against, in the same run, (a) the hashing alone that every append
// must pay (canonicalise + SHA-256 + CIDv1) and (b) a bare better-sqlite3 insert of the same
// rows in batches of 1,000 (the DESIGN §7 figure, ~200k rows/s). Also: single-caller
// appends against single-row commits, reads, and chain verification.
// Run after `npm run build`: `node bench/store.bench.js`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { median, report } from './lib.js';
import { memoryEventLog, sqliteEventLog } from '../dist/store/index.js';
import { canonicalizeJcs } from '../dist/core/canonical/jcs.js';
import { eventCid } from '../dist/core/cid.js';

const N = 20_000;
const ROUNDS = 3;
const CALLERS = 200;

/** A ~300-byte event input, different each time. */
const input = (i) => ({
  type: 'job.progressed',
  data: { job: `job-${i % 977}`, step: i, note: 'working on it', metrics: { cpu: 0.25, items: [1, 2, 3] } },
  causation: `req-${i}`,
  tenant: 'acme',
});

const dirs = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'plexus-bench-'));
  dirs.push(d);
  return d;
};

/** Appends N events from CALLERS concurrent callers, one event per call. */
async function plexusConcurrent(makeLog) {
  const log = makeLog();
  await log.start();
  let next = 0;
  const start = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CALLERS }, async () => {
      while (next < N) await log.append(input(next++));
    }),
  );
  const s = Number(process.hrtime.bigint() - start) / 1e9;
  await log.stop();
  return N / s;
}

/** Appends N/10 events one after another from a single caller (no batching possible). */
async function plexusSequential() {
  const log = sqliteEventLog({ dir: tempDir() });
  await log.start();
  const n = N / 10;
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await log.append(input(i));
  const s = Number(process.hrtime.bigint() - start) / 1e9;
  await log.stop();
  return n / s;
}

/** Bare better-sqlite3: the same table, rows prepared up front, 1,000 rows a transaction. */
function bareBatched(rowsPerCommit) {
  const db = new Database(join(tempDir(), 'bare.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`CREATE TABLE events (seq INTEGER PRIMARY KEY, cid TEXT NOT NULL, prev TEXT, type TEXT NOT NULL,
    data TEXT NOT NULL, causation TEXT, trace TEXT, tenant TEXT, time TEXT NOT NULL) STRICT;
    CREATE INDEX events_type_seq ON events (type, seq);`);
  const insert = db.prepare('INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const n = rowsPerCommit === 1 ? N / 10 : N;
  const rows = Array.from({ length: n }, (_, i) => {
    const e = input(i);
    return [
      i + 1,
      `bagaaiera${i}`,
      `bagaaiera${i - 1}`,
      e.type,
      JSON.stringify(e.data),
      e.causation,
      null,
      e.tenant,
      new Date().toISOString(),
    ];
  });
  const tx = db.transaction((batch) => {
    for (const r of batch) insert.run(...r);
  });
  const start = process.hrtime.bigint();
  for (let i = 0; i < rows.length; i += rowsPerCommit) tx(rows.slice(i, i + rowsPerCommit));
  const s = Number(process.hrtime.bigint() - start) / 1e9;
  db.close();
  return n / s;
}

/** What every append pays before storage: canonicalise, SHA-256, CIDv1 of the event body. */
function hashingOnly() {
  const time = new Date().toISOString();
  const start = process.hrtime.bigint();
  let prev = null;
  for (let i = 0; i < N; i++) {
    canonicalizeJcs(input(i).data);
    prev = eventCid({ ...input(i), prev, time });
  }
  return N / (Number(process.hrtime.bigint() - start) / 1e9);
}

async function measure(subjects) {
  const samples = Object.fromEntries(Object.keys(subjects).map((k) => [k, []]));
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, fn] of Object.entries(subjects)) samples[name].push(await fn());
  }
  return Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
}

try {
  const batched = await measure({
    'plexus sqlite append, 200 concurrent callers': () =>
      plexusConcurrent(() => sqliteEventLog({ dir: tempDir() })),
    'plexus memory append, 200 concurrent callers': () => plexusConcurrent(() => memoryEventLog()),
    'bare better-sqlite3 insert, 1,000 rows a commit': () => bareBatched(1000),
    'canonicalise + sha256 + CIDv1 only': () => hashingOnly(),
  });
  report('Event log appends per second (group commit)', batched, {
    subject: 'plexus sqlite append, 200 concurrent callers',
    baseline: 'canonicalise + sha256 + CIDv1 only',
    target: '>= 0.5x: storage, validation and bookkeeping at most double the unavoidable hashing',
    pass: (r) => r >= 0.5,
  });
  const bare =
    batched['plexus sqlite append, 200 concurrent callers'] /
    batched['bare better-sqlite3 insert, 1,000 rows a commit'];
  console.log(
    `ratio plexus sqlite append / bare better-sqlite3 batched insert = ${bare.toFixed(2)}x (for information)`,
  );

  const single = await measure({
    'plexus sqlite append, one caller awaiting each': () => plexusSequential(),
    'bare better-sqlite3 insert, 1 row a commit': () => bareBatched(1),
  });
  report('Appends per second without concurrency (one commit each)', single, {
    subject: 'plexus sqlite append, one caller awaiting each',
    baseline: 'bare better-sqlite3 insert, 1 row a commit',
    target: '>= 0.3x',
    pass: (r) => r >= 0.3,
  });

  const dir = tempDir();
  const log = sqliteEventLog({ dir });
  await log.start();
  for (let i = 0; i < N; i += 1000) await log.append(Array.from({ length: 1000 }, (_, k) => input(i + k)));
  let start = process.hrtime.bigint();
  for (let after = 0; after < N; after += 1000) await log.read({ afterSeq: after, limit: 1000 });
  const readRate = N / (Number(process.hrtime.bigint() - start) / 1e9);
  start = process.hrtime.bigint();
  const v = await log.verifyChain();
  const verifyRate = v.count / (Number(process.hrtime.bigint() - start) / 1e9);
  await log.stop();
  console.log(`\nread (pages of 1,000): ${Math.round(readRate).toLocaleString('en-US')} events/s`);
  console.log(`verifyChain: ${Math.round(verifyRate).toLocaleString('en-US')} events/s (ok=${v.ok})`);
} finally {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
