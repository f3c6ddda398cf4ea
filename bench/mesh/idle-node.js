// A child process of bench/mesh.bench.js (part 4): starts one node (createNode from dist/, dev
// mode, the SQLite event log, the default faces, no demo agents) with the mesh on when given
// `--mesh`, leaves it idle for BENCH_IDLE_SECONDS (default 10), runs a full garbage collection
// (started with --expose-gc) and prints its memory as one JSON line, then stops.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNode } from '../../dist/node/index.js';

const mesh = process.argv.includes('--mesh');
const idleMs = Number(process.env.BENCH_IDLE_SECONDS ?? 10) * 1000;
const dataDir = mkdtempSync(join(tmpdir(), 'plexus-mesh-idle-'));
process.on('exit', () => rmSync(dataDir, { recursive: true, force: true }));
const node = createNode({
  dataDir,
  host: '127.0.0.1',
  port: 0,
  dev: true,
  demo: false,
  ...(mesh ? { mesh: { enabled: true } } : {}),
});
await node.start();
await new Promise((resolve) => setTimeout(resolve, idleMs));
globalThis.gc?.();
const { rss, heapUsed } = process.memoryUsage();
console.log(JSON.stringify({ mesh, rssBytes: rss, heapUsedBytes: heapUsed }));
await node.stop({ drainMs: 0 });
