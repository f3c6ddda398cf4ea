// Part 3 of bench/mesh.bench.js: calls from one node to an agent of another over the mesh's
// `/plexus/rpc/1.1.0` (many calls per long-lived stream, MESH-39) beside HTTP peer forwarding (`POST /v1/peer/invoke`), between the same two
// nodes. Both are real nodes (createNode from dist/, dev mode, the SQLite event log, the default
// faces, the mesh on); the near node lists the far one under `peers:` and has it as its mesh
// bootstrap, so it reaches the far node's `worker` both ways. Each call is a sync invocation on
// the near node naming its route with a target (`p2p://<far did>/worker` or
// `http://127.0.0.1:<port>/worker`); it runs as a job on both nodes. `concurrency` callers keep
// calls in flight; rows alternate in rounds of `seconds` each, every answer checked.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNode } from '../../dist/node/index.js';
import { defineAgent } from '../../dist/runtime/index.js';
import { TARGET_EXTENSION } from '../../dist/runtime/routing/index.js';
import { ms, pct } from './peers.js';

const VERB = 'bench.echo';

const worker = defineAgent({
  card: {
    id: 'worker',
    name: 'Bench worker',
    version: '1.0.0',
    tier: 'L3',
    capabilities: [{ verb: VERB, input: true, output: true }],
  },
  create: () => ({ [VERB]: (input) => input }),
});

async function startNode(init) {
  const dataDir = mkdtempSync(join(tmpdir(), 'plexus-mesh-bench-'));
  const node = createNode({
    dataDir,
    host: '127.0.0.1',
    port: 0,
    dev: true,
    demo: false,
    primitives: false,
    ...init,
  });
  await node.start();
  return {
    node,
    stop: async () => {
      await node.stop({ drainMs: 0 });
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * @param {{ seconds: number, rounds: number, concurrency: number }} opts
 */
export async function rpcBench(opts) {
  const far = await startNode({ agents: [worker], mesh: { enabled: true } });
  const farMesh = await (await fetch(`${far.node.url}/v1/mesh`)).json();
  const boot = farMesh.addresses.find((a) => a.startsWith('/ip4/127.0.0.1/tcp/'));
  const near = await startNode({
    peers: [{ url: far.node.url, did: far.node.nodeId }],
    peerPollMs: 1000,
    mesh: { enabled: true, bootstrap: [boot] },
  });
  try {
    const targets = {
      mesh: `p2p://${far.node.nodeId}/worker`,
      http: `${far.node.url}/worker`,
    };
    const call = async (row, n) => {
      const data = { n, pad: 'y'.repeat(64) };
      const { envelope } = await near.node.runtime.invoke(
        {
          id: randomUUID(),
          kind: 'request',
          from: 'did:example:bench',
          to: 'worker',
          verb: VERB,
          data,
          extensions: { [TARGET_EXTENSION]: targets[row] },
        },
        { face: 'internal' },
      );
      if (envelope.kind !== 'response' || envelope.data?.n !== n) {
        throw new Error(`${row} call ${n} answered ${JSON.stringify(envelope).slice(0, 300)}`);
      }
    };
    // Both routes answer before the clock starts (the mesh connection and the peer's card).
    for (const row of ['mesh', 'http']) {
      let last;
      for (let attempt = 0; attempt < 50; attempt += 1) {
        try {
          await call(row, attempt);
          last = undefined;
          break;
        } catch (error) {
          last = error;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
      if (last !== undefined) throw last;
    }
    const rows = {
      mesh: { calls: 0, seconds: 0, cpuMs: 0, times: [] },
      http: { calls: 0, seconds: 0, cpuMs: 0, times: [] },
    };
    let n = 1000;
    const measure = async (row) => {
      const r = rows[row];
      const end = performance.now() + opts.seconds * 1000;
      const start = performance.now();
      const cpu = process.cpuUsage();
      await Promise.all(
        Array.from({ length: opts.concurrency }, async () => {
          while (performance.now() < end) {
            const t = performance.now();
            await call(row, (n += 1));
            r.times.push(performance.now() - t);
            r.calls += 1;
          }
        }),
      );
      const used = process.cpuUsage(cpu);
      r.cpuMs += (used.user + used.system) / 1000;
      r.seconds += (performance.now() - start) / 1000;
    };
    for (let round = 0; round < opts.rounds; round += 1) {
      for (const row of round % 2 === 0 ? ['mesh', 'http'] : ['http', 'mesh']) await measure(row);
    }
    const summary = (row) => {
      const r = rows[row];
      const sorted = r.times.sort((a, b) => a - b);
      return {
        calls: r.calls,
        callsPerSecond: Math.round(r.calls / r.seconds),
        p50Ms: ms(pct(sorted, 50)),
        p99Ms: ms(pct(sorted, 99)),
        cpuMsPerCall: Number((r.cpuMs / Math.max(1, r.calls)).toFixed(2)),
      };
    };
    const mesh = summary('mesh');
    const http = summary('http');
    return {
      concurrency: opts.concurrency,
      mesh,
      http,
      ratio: Number((mesh.callsPerSecond / http.callsPerSecond).toFixed(2)),
    };
  } finally {
    await near.stop();
    await far.stop();
  }
}

/**
 * For scale, the bare transports under the rpc row (the ceiling a Plexus call over each can
 * approach, never pass): one request and its answer (the rpc row's payload size) on a new
 * libp2p stream per call — the mesh's own stack, protocol negotiated lazily as the rpc client
 * does — beside a keep-alive `fetch` POST to a bare `node:http` echo, both in this process,
 * same concurrency, alternating rounds.
 * @param {{ seconds: number, rounds: number, concurrency: number }} opts
 */
export async function transportCeiling(opts) {
  const { createServer } = await import('node:http');
  const { generateKeyPair } = await import('../../dist/security/index.js');
  const { createMeshPeer } = await import('../../dist/transports/mesh/mesh-peer.js');
  const make = () =>
    createMeshPeer({
      seed: generateKeyPair().secretKey,
      listen: ['/ip4/127.0.0.1/tcp/0'],
      announce: [],
      maxMessageBytes: 64 * 1024,
    });
  const a = await make();
  const b = await make();
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => res.end(Buffer.concat(chunks)));
  });
  try {
    await b.handle(
      '/bench/echo/1.0.0',
      (stream) => {
        stream.addEventListener('message', (event) => {
          // a stream the caller reset throws on send: inside an event listener that would be an
          // uncaught exception and end the bench (src/transports/mesh guards every send the same way)
          try {
            stream.send(event.data.subarray());
          } catch {
            return;
          }
          stream.close().catch(() => undefined);
        });
      },
      { maxInboundStreams: 256 },
    );
    await a.dial(b.getMultiaddrs()[0]);
    await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
    const url = `http://127.0.0.1:${server.address().port}/`;
    const payload = new TextEncoder().encode(JSON.stringify({ n: 0, pad: 'y'.repeat(400) }));
    const once = {
      libp2p: async () => {
        const stream = await a.dialProtocol(b.peerId, '/bench/echo/1.0.0', {
          negotiateFully: false,
          maxOutboundStreams: 256,
        });
        stream.send(payload);
        for await (const chunk of stream) if (chunk.byteLength > 0) break;
        stream.close().catch(() => undefined);
      },
      http: async () => {
        await (await fetch(url, { method: 'POST', body: payload })).arrayBuffer();
      },
    };
    const counts = { libp2p: { calls: 0, seconds: 0 }, http: { calls: 0, seconds: 0 } };
    for (let round = 0; round < opts.rounds; round += 1) {
      for (const row of round % 2 === 0 ? ['libp2p', 'http'] : ['http', 'libp2p']) {
        const start = performance.now();
        const end = start + opts.seconds * 1000;
        await Promise.all(
          Array.from({ length: opts.concurrency }, async () => {
            while (performance.now() < end) {
              await once[row]();
              counts[row].calls += 1;
            }
          }),
        );
        counts[row].seconds += (performance.now() - start) / 1000;
      }
    }
    const libp2p = Math.round(counts.libp2p.calls / counts.libp2p.seconds);
    const http = Math.round(counts.http.calls / counts.http.seconds);
    return { libp2pStreamPerCall: libp2p, httpKeepAlive: http, ratio: Number((libp2p / http).toFixed(2)) };
  } finally {
    server.close();
    await a.stop();
    await b.stop();
  }
}
