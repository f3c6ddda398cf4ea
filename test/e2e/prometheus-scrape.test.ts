/**
 * A real Prometheus (Debian's `prometheus` package, installed by `.ci/run`) scrapes a node's
 * `GET /metrics` with an API key, and its HTTP API then answers `agentese_invocations_total`
 * for the calls made (issue 16 item 2). Skipped where `/usr/bin/prometheus` is not installed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createNode, type Node } from '../../src/node/index.js';
import { generateApiKey } from '../../src/security/index.js';
import { esrpRequest } from './harness.js';

const PROMETHEUS = '/usr/bin/prometheus';
const key = generateApiKey();

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => {
        resolve(port);
      });
    });
  });
}

interface QueryAnswer {
  status: string;
  data?: { result: { metric: Record<string, string>; value: [number, string] }[] };
}

describe('a real Prometheus scrapes GET /metrics', () => {
  it("has Prometheus installed (.ci/run installs Debian's package)", () => {
    expect(existsSync(PROMETHEUS), `${PROMETHEUS} is missing: apt-get install prometheus`).toBe(true);
  });

  let node: Node | undefined;
  let prometheus: ChildProcess | undefined;
  const dirs: string[] = [];
  afterAll(async () => {
    if (prometheus !== undefined && prometheus.exitCode === null) {
      const exited = new Promise((resolve) => prometheus?.once('exit', resolve));
      prometheus.kill('SIGTERM');
      await exited;
    }
    await node?.stop({ drainMs: 0 });
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('answers agentese_invocations_total for the calls made, by verb and tenant', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'plexus-prom-node-'));
    const promDir = await mkdtemp(join(tmpdir(), 'plexus-prom-'));
    dirs.push(dataDir, promDir);
    node = createNode({
      dataDir,
      store: 'memory',
      host: '127.0.0.1',
      port: 0,
      dev: false,
      demo: ['echo'],
      primitives: false,
      apiKeys: [{ hash: key.hash, subject: 'scraper', tenant: 'acme' }],
    });
    await node.start();
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${node.url}/v1/execute`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key.key}` },
        body: JSON.stringify(esrpRequest('echo.echo', { text: randomUUID() })),
      });
      expect(res.status).toBe(200);
      await res.text();
    }
    const webPort = await freePort();
    const target = new URL(node.url).host;
    await writeFile(
      join(promDir, 'prometheus.yml'),
      [
        'global:',
        '  scrape_interval: 1s',
        'scrape_configs:',
        '  - job_name: plexus',
        '    authorization:',
        `      credentials: ${key.key}`,
        '    static_configs:',
        `      - targets: ['${target}']`,
        '',
      ].join('\n'),
    );
    prometheus = spawn(
      PROMETHEUS,
      [
        `--config.file=${join(promDir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(promDir, 'data')}`,
        `--web.listen-address=127.0.0.1:${webPort}`,
      ],
      { stdio: 'ignore' },
    );
    const query = `http://127.0.0.1:${webPort}/api/v1/query?query=${encodeURIComponent(
      'agentese_invocations_total{verb="echo.echo"}',
    )}`;
    let found: QueryAnswer['data'] | undefined;
    // Bounded: Prometheus starts, scrapes every second; at most 60 tries half a second apart.
    for (let attempt = 0; attempt < 60 && found === undefined; attempt++) {
      expect(prometheus.exitCode, 'prometheus exited').toBeNull();
      try {
        const answer = (await (await fetch(query)).json()) as QueryAnswer;
        if (answer.status === 'success' && (answer.data?.result.length ?? 0) > 0) found = answer.data;
      } catch {
        // not listening yet
      }
      if (found === undefined) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(found?.result).toHaveLength(1);
    const [series] = found!.result;
    expect(series!.metric).toMatchObject({
      __name__: 'agentese_invocations_total',
      verb: 'echo.echo',
      tenant: 'acme',
      status: 'success',
      job: 'plexus',
    });
    expect(Number(series!.value[1])).toBe(3);
  }, 60_000);
});
