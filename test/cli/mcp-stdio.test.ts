/**
 * `plexus mcp` (issue 13 item 2): the built `bin/plexus.js mcp …` spawned by the MCP SDK's own
 * `Client` over `StdioClientTransport`, forwarding to a real node process (`--node`) and to
 * an in-process node hosting an agent module (`--agent`): tools listed and called, progress
 * reaching the host, a host's cancel reaching the job, an unknown tool an error, upstream
 * errors forwarded, a node that cannot be reached or refuses the credential failing with its
 * URL, and stdout carrying nothing but MCP frames.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/security/index.js';
import { BIN, ROOT, freePort, startNodeProcess, tempDir, type NodeProcess } from '../e2e/harness.js';
import { useNodeProcess } from '../support/e2e-fixture.js';
import { until } from '../support/until.js';

const SDK = pathToFileURL(join(ROOT, 'dist', 'sdk', 'index.js')).href;

/** An agent whose verbs answer, report progress, wait for a cancel, and print to stdout. */
const STEPS = `import { agent, verb } from '${SDK}';
const schema = { type: 'object' };
export default agent('steps', [
  verb('steps.count', { input: schema, output: schema }, (input, ctx) => {
    ctx.progress({ step: 1 });
    return { n: input.n ?? 0 };
  }),
  verb('steps.wait', { input: schema, output: schema }, (input, ctx) =>
    new Promise((_resolve, reject) => {
      ctx.signal.addEventListener('abort', () => {
        console.error('steps.wait saw the cancel');
        reject(new Error('cancelled'));
      }, { once: true });
      ctx.progress({ step: 'waiting' });
    }),
  ),
  verb('steps.noisy', { input: schema, output: schema }, () => {
    console.log('noise from console.log');
    process.stdout.write('noise from process.stdout.write\\n');
    return { quiet: false };
  }),
]);
`;

const dir = tempDir('plexus-mcp-stdio-');
const STEPS_FILE = join(dir, 'steps.mjs');
writeFileSync(STEPS_FILE, STEPS);

// No Hyperspace primitives: some of their tools have boolean subschemas (`"value": true`),
// which the SDK client's tools/list check refuses, forwarded or not (reported to the lead).
const e2e = useNodeProcess({
  flags: ['--dev', '--memory', '--agent', STEPS_FILE],
  config: 'primitives: false\n',
});

interface Host {
  readonly client: Client;
  /** What the `plexus mcp` process wrote to stderr so far. */
  stderr(): string;
  /** Errors the client saw (a stdout line that is not a frame would be one). */
  readonly errors: Error[];
}

const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
});

/** Spawns `plexus mcp …args` as an MCP host would, and connects the SDK client to it. */
async function host(args: readonly string[], env: Record<string, string> = {}): Promise<Host> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    env: { ...getDefaultEnvironment(), ...env },
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const client = new Client({ name: 'test-host', version: '1.0.0' });
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);
  clients.push(client);
  await client.connect(transport);
  return { client, stderr: () => err, errors };
}

/** The result of running `plexus mcp …args` to its exit, with `input` lines on stdin as it answers. */
interface Run {
  readonly code: number | string;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Spawns `plexus mcp …args`; writes each request of `requests` once the answer to the one
 * before it is on stdout, then closes stdin and waits (bounded) for the exit.
 */
async function run(
  args: readonly string[],
  requests: readonly Record<string, unknown>[] = [],
  env: Record<string, string> = {},
): Promise<Run> {
  const child = spawn(process.execPath, [BIN, 'mcp', ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, PLEXUS_NODE: '', PLEXUS_TOKEN: '', ...env },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const exited = new Promise<number | string>((done) => {
    child.once('exit', (code, signal) => {
      done(code ?? signal ?? 'unknown');
    });
  });
  const state = { gone: false };
  void exited.then(() => (state.gone = true));
  const timer = setTimeout(() => child.kill('SIGKILL'), 25_000);
  try {
    for (const request of requests) {
      if (state.gone) break;
      child.stdin.write(`${JSON.stringify(request)}\n`);
      const id = request['id'];
      if (id !== undefined)
        await until(() => state.gone || out.includes(`"id":${JSON.stringify(id)}}`), 20_000);
    }
    child.stdin.end();
    return { code: await exited, stdout: out, stderr: err };
  } finally {
    clearTimeout(timer);
  }
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };

function text(result: Record<string, unknown>): string {
  return ((result['content'] ?? []) as { type: string; text?: string }[]).map((c) => c.text ?? '').join('\n');
}

/** The checks both modes share: list, call, progress and cancel, an unknown tool, a bad cursor. */
function forwards(start: () => Promise<Host>, cancelSeen: (h: Host) => string): void {
  it('lists the tools and calls one', async () => {
    const h = await start();
    const { tools } = await h.client.listTools();
    expect(tools.map((t: Tool) => t.name)).toEqual(
      expect.arrayContaining(['steps.steps.count', 'steps.steps.wait']),
    );
    const count = tools.find((t: Tool) => t.name === 'steps.steps.count');
    expect(count?.inputSchema.type).toBe('object');
    const result = await h.client.callTool({ name: 'steps.steps.count', arguments: { n: 2 } });
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toEqual({ n: 2 });
    await expect(h.client.ping()).resolves.toEqual({});
    expect(h.errors).toEqual([]);
  });

  it("forwards the job's progress to the host's token, and the host's cancel to the job", async () => {
    const h = await start();
    const seen: number[] = [];
    const controller = new AbortController();
    const call = h.client.callTool({ name: 'steps.steps.wait', arguments: {} }, undefined, {
      signal: controller.signal,
      onprogress: (p) => seen.push(p.progress),
    });
    // the verb reports progress, then waits for the cancel: the progress must arrive first
    await until(() => seen.length > 0, 20_000);
    expect(seen[0]).toBe(1);
    controller.abort('enough');
    await expect(call).rejects.toThrow();
    await until(() => cancelSeen(h).includes('steps.wait saw the cancel'), 20_000);
  });

  it('answers an unknown tool with an error naming it, and keeps serving', async () => {
    const h = await start();
    const result = await h.client.callTool({ name: 'steps.nope', arguments: {} });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('UNKNOWN_VERB');
    expect(text(result)).toContain('steps.nope');
    // an upstream JSON-RPC error (a cursor the node never gave) reaches the host as an error
    await expect(h.client.listTools({ cursor: 'not-ours' })).rejects.toThrow();
    const again = await h.client.callTool({ name: 'steps.steps.count', arguments: { n: 5 } });
    expect(again.structuredContent).toEqual({ n: 5 });
  });
}

describe('plexus mcp --node URL', () => {
  forwards(
    () => host(['--node', e2e.node.url]),
    () => e2e.node.stderr(),
  );

  it('declares the capabilities and server info the node declared', async () => {
    const h = await host(['--node', e2e.node.url]);
    const direct = new Client({ name: 'direct', version: '1.0.0' });
    clients.push(direct);
    await direct.connect(new StreamableHTTPClientTransport(new URL(`${e2e.node.url}/mcp`)));
    expect(h.client.getServerCapabilities()).toEqual(direct.getServerCapabilities());
    expect(h.client.getServerVersion()).toEqual(direct.getServerVersion());
  });

  it('fails with the URL on stderr and exit 1 when no node listens there', async () => {
    const port = await freePort();
    const r = await run(['--node', `http://127.0.0.1:${port}`], [INITIALIZE]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`cannot reach the Plexus node's MCP face at http://127.0.0.1:${port}/mcp`);
    expect(r.stderr).toContain('is the node running');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('refuses bad flags with a message', async () => {
    const r = await run(['--node', 'ftp://example.org']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('--node must be an http:// or https:// URL');
    const both = await run(['--node', e2e.node.url, '--agent', STEPS_FILE]);
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('cannot be combined with --node');
  });
});

describe('plexus mcp --node URL on a node that demands a credential', () => {
  const key = generateApiKey();
  let node: NodeProcess;
  beforeAll(async () => {
    node = await startNodeProcess({
      flags: ['--memory', '--agent', STEPS_FILE],
      config: `primitives: false\nauth:\n  apiKeys:\n    - { hash: ${key.hash}, subject: host }\n`,
    });
  });

  it('fails naming the URL and --token without one, and works with $PLEXUS_TOKEN or --token', async () => {
    const refused = await run(['--node', node.url], [INITIALIZE]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(`at ${node.url}/mcp`);
    expect(refused.stderr).toContain('UNAUTHORIZED');
    expect(refused.stderr).toContain('--token');
    const viaEnv = await host(['--node', node.url], { PLEXUS_TOKEN: key.key });
    expect((await viaEnv.client.listTools()).tools.map((t: Tool) => t.name)).toContain('steps.steps.count');
    const viaFlag = await host(['--node', `${node.url}/mcp`, '--token', key.key]);
    const result = await viaFlag.client.callTool({ name: 'steps.steps.count', arguments: { n: 1 } });
    expect(result.structuredContent).toEqual({ n: 1 });
  });
});

describe('plexus mcp --agent FILE', () => {
  forwards(
    () => host(['--agent', STEPS_FILE]),
    (h) => h.stderr(),
  );

  it('keeps stdout for MCP frames (agent output goes to stderr) and exits 0 when stdin closes', async () => {
    const r = await run(
      ['--agent', STEPS_FILE],
      [
        INITIALIZE,
        INITIALIZED,
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'steps.steps.noisy', arguments: {} } },
      ],
    );
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n').filter((line) => line !== '');
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    expect(JSON.parse(lines[1] ?? '')).toMatchObject({
      id: 2,
      result: { structuredContent: { quiet: false } },
    });
    expect(r.stderr).toContain('noise from console.log');
    expect(r.stderr).toContain('noise from process.stdout.write');
  });

  it('fails naming the file when an agent module cannot be loaded', async () => {
    const missing = join(dir, 'missing.mjs');
    const r = await run(['--agent', missing], [INITIALIZE]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`cannot load agent module ${missing}: no such file`);
  });
});
