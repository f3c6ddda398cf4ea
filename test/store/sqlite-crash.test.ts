import type { AnyEvents } from '../../src/store/index.js';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sqliteEventLog } from '../../src/store/index.js';

const compiled = fileURLToPath(new URL('../../dist/store/index.js', import.meta.url));

/**
 * The child process: appends to a SQLite event log from 16 concurrent callers through the
 * real (compiled) store, printing "seq cid" for every acknowledged event, until it is killed.
 */
const WRITER = `
import { sqliteEventLog } from ${JSON.stringify(pathToFileURL(compiled).href)};
const log = sqliteEventLog({ dir: process.env.PLEXUS_CRASH_DIR });
await log.start();
let counter = 0;
async function caller(id) {
  for (;;) {
    const n = counter++;
    const events = n % 3 === 0
      ? await log.append([
          { type: 'crash.pair', data: { id, n, k: 0 } },
          { type: 'crash.pair', data: { id, n, k: 1 } },
        ])
      : [await log.append({ type: 'crash.single', data: { id, n, pad: 'x'.repeat(n % 200) } })];
    process.stdout.write(events.map((e) => e.seq + ' ' + e.cid + '\\n').join(''));
  }
}
for (let id = 0; id < 16; id++) void caller(id);
`;

/** Runs the writer until it has acknowledged at least `target` events, then SIGKILLs it. */
function runAndKill(dir: string, target: number): Promise<Map<number, string>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', WRITER], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PLEXUS_CRASH_DIR: dir },
    });
    const acked = new Map<number, string>();
    let pending = '';
    let stderr = '';
    let killed = false;
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        const [seq, cid] = line.split(' ');
        if (cid !== undefined) acked.set(Number(seq), cid);
      }
      if (!killed && acked.size >= target) {
        killed = true;
        child.kill('SIGKILL');
      }
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve(acked);
      else reject(new Error(`writer exited with ${String(code)} before being killed: ${stderr}`));
    });
  });
}

describe('sqliteEventLog crash safety', () => {
  it('keeps every acknowledged event and a valid chain after kill -9', async () => {
    expect(existsSync(compiled), `build first (npm run build): ${compiled} is missing`).toBe(true);
    const dir = await mkdtemp(join(tmpdir(), 'plexus-crash-'));
    try {
      const first = await runAndKill(dir, 1500);
      const second = await runAndKill(dir, first.size + 500);
      const acked = new Map([...first, ...second]);
      const log = sqliteEventLog<AnyEvents>({ dir });
      await log.start();
      const head = await log.head();
      expect(head.seq).toBeGreaterThanOrEqual(Math.max(...acked.keys()));
      const stored = new Map<number, string>();
      for (let after = 0; after < head.seq;) {
        const page = await log.read({ afterSeq: after, limit: 5000 });
        for (const e of page) stored.set(e.seq, e.cid);
        after = page[page.length - 1]?.seq ?? head.seq;
      }
      for (const [seq, cid] of acked) expect(stored.get(seq), `acknowledged seq ${seq}`).toBe(cid);
      expect(await log.verifyChain()).toMatchObject({ ok: true, count: head.seq });
      const next = await log.append({ type: 'crash.after', data: null });
      expect(next).toMatchObject({ seq: head.seq + 1, prev: head.cid });
      await log.stop();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
