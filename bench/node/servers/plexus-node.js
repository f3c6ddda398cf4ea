// The Plexus node under test: `createNode` from the compiled code (../../../dist, build first
// with `npm run build`) in dev mode on 127.0.0.1, port 0, with the demo agents (echo.echo among
// them) and the event log on — the embedded SQLite store, the default, in a fresh temporary
// data directory that is removed when the process is stopped. All faces share the one port
// (D15): ESRP at /v1/execute, WebSocket JSON-RPC at / and /rpc. Started as a child process.
// With the argument `--traced`: tracing on at 100% sampling, exported over OTLP/HTTP (protobuf,
// the default; `--traced-json` for OTLP/JSON) to a receiver in this process (a node:http server
// that reads each batch and answers 200), so the figure includes building, batching,
// serialising and sending every span.
// With the argument `--bare`: no instrumentation at all — `metrics.enabled: false` (no meters,
// no timed log appends, no metered admission gate) and no tracing, so the runtime's observer is
// the no-op one (OBS-50). The default node (no argument) is what a user runs: meters on, tracing
// off; the difference between the two rows is the whole cost of observability with the
// exporter off.
import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { createNode } from '../../../dist/node/index.js';
import { announce, HOST } from './announce.js';

const dataDir = await mkdtemp(join(tmpdir(), 'plexus-bench-'));
const removeDataDir = () => rmSync(dataDir, { recursive: true, force: true });
// Also on an exit the shutdown below does not reach (a start failure, the 4 s bound).
process.on('exit', removeDataDir);

const tracedJson = process.argv.includes('--traced-json');
const traced = tracedJson || process.argv.includes('--traced');
const bare = process.argv.includes('--bare');
/** @type {import('node:http').Server | undefined} */
let receiver;
/** @type {{ endpoint: string, sampling: number, protocol: 'http/json' | 'http/protobuf' } | undefined} */
let tracing;
if (traced) {
  receiver = createServer((req, res) => {
    req.resume();
    // an empty success: `{}` in OTLP/JSON, an empty ExportTraceServiceResponse in protobuf
    req.on('end', () =>
      tracedJson
        ? res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
        : res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end(),
    );
  });
  await new Promise((done) => receiver?.listen(0, HOST, () => done(undefined)));
  const address = receiver.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  tracing = {
    endpoint: `http://${HOST}:${port}`,
    sampling: 1,
    protocol: tracedJson ? 'http/json' : 'http/protobuf',
  };
}

const node = createNode({
  dataDir,
  store: 'sqlite',
  host: HOST,
  port: 0,
  dev: true,
  demo: true,
  ...(tracing === undefined ? {} : { tracing }),
  ...(bare ? { metrics: { enabled: false } } : {}),
});
await node.start();
announce(node.port, {
  shutdown: async () => {
    // The load process has closed its clients by now: nothing is in flight to drain.
    await node.stop({ drainMs: 1000 });
    receiver?.close();
    removeDataDir();
  },
});
