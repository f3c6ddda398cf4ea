// The MCP client bridge's cost per call (issue 13, "Performance"): a stdio MCP server
// (test/fixtures/mcp-bridge/stdio-server.mjs, tool `echo`) called through the bridge — the verb
// mcp.fix.echo invoked on the runtime of an in-process node (memory log), so the whole pipeline
// runs (input check, idempotency, audit, job events) — against the same server called directly
// with the SDK's Client over stdio, in the same run, interleaved rounds. Calls are sequential
// (one in flight), so each figure is calls per second of one caller. Target: the bridge's time
// per call at most 1.5x the direct call's, i.e. ops/s ratio bridge / direct >= 0.67.
// Run after `npm run build`: `node bench/mcp-bridge.bench.js` (BENCH_CALLS per round, default 2000).
// A benchmark measures; it never fails on a figure.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { median, report } from './lib.js';
import { createNode } from '../dist/node/index.js';
import { mcpBridgeFace } from '../dist/transports/mcp-bridge/index.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 2_000);
const ROUNDS = 3;
const FIXTURE = fileURLToPath(new URL('../test/fixtures/mcp-bridge/stdio-server.mjs', import.meta.url));
const server = { command: process.execPath, args: [FIXTURE] };

const dataDir = mkdtempSync(join(tmpdir(), 'plexus-bench-mcp-'));
const node = createNode({
  dataDir,
  store: 'memory',
  primitives: false,
  host: '127.0.0.1',
  port: 0,
  dev: true,
  faces: [mcpBridgeFace({ servers: [{ name: 'fix', ...server }] })],
});
await node.start();
for (let i = 0; i < 500 && node.runtime.agents.registry.find('fix') === undefined; i++)
  await new Promise((r) => setTimeout(r, 20));

const direct = new Client({ name: 'bench', version: '1.0.0' });
await direct.connect(new StdioClientTransport(server));

let n = 0;
async function viaBridge() {
  const verb = 'mcp.fix.echo';
  const { envelope } = await node.runtime.invoke(
    {
      id: randomUUID(),
      kind: 'request',
      from: 'bench',
      to: `capability:${verb}`,
      verb,
      data: { text: `hi ${++n}` },
    },
    { face: 'internal' },
  );
  if (envelope.kind !== 'response') throw new Error(JSON.stringify(envelope.data));
}
async function viaSdk() {
  const result = await direct.callTool({ name: 'echo', arguments: { text: `hi ${++n}` } });
  if (result.isError === true) throw new Error('isError');
}

async function opsPerSecond(fn) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) await fn();
  return (CALLS * 1e9) / Number(process.hrtime.bigint() - start);
}

const subjects = { 'bridge (runtime.invoke → stdio)': viaBridge, 'SDK Client → stdio (direct)': viaSdk };
for (const fn of Object.values(subjects)) for (let i = 0; i < 200; i++) await fn(); // warm-up
const samples = Object.fromEntries(Object.keys(subjects).map((k) => [k, []]));
for (let r = 0; r < ROUNDS; r++) {
  const order = r % 2 === 0 ? Object.keys(subjects) : Object.keys(subjects).reverse();
  for (const name of order) samples[name].push(await opsPerSecond(subjects[name]));
}
const results = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
report(
  `MCP bridge: calls per second to a stdio MCP server, one caller (${CALLS} calls × ${ROUNDS} rounds)`,
  results,
  {
    subject: 'bridge (runtime.invoke → stdio)',
    baseline: 'SDK Client → stdio (direct)',
    target: '>= 0.67x (cost <= 1.5x)',
    pass: (ratio) => ratio >= 1 / 1.5,
  },
);

await direct.close();
await node.stop({ drainMs: 0 });
rmSync(dataDir, { recursive: true, force: true });
