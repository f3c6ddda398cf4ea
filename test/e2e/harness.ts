/**
 * E2E harness: real `plexus start` processes on 127.0.0.1 with `--port 0`. A node prints
 * `plexus node <did> listening on <url>` as its first line; the harness waits for it, with a
 * bound, and remembers every child so `killAll()` (in afterAll) leaves none behind.
 * Needs dist/ (`npm test` builds first).
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { generateApiKey, type GeneratedApiKey } from '../../src/security/auth/api-keys.js';
import { eventually as pollUntilValue } from '../support/until.js';

export const ROOT = resolve(fileURLToPath(import.meta.url), '../../..');
export const BIN = join(ROOT, 'bin', 'plexus.js');

/** True when the compiled CLI exists. */
export function built(): boolean {
  return existsSync(join(ROOT, 'dist', 'cli', 'main.js'));
}

const children = new Set<ChildProcessByStdio<null, Readable, Readable>>();
const dirs: string[] = [];

/** A fresh temporary directory, removed by {@link cleanup}. */
export function tempDir(prefix = 'plexus-e2e-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** A running node process. */
export interface NodeProcess {
  readonly child: ChildProcessByStdio<null, Readable, Readable>;
  readonly url: string;
  readonly nodeId: string;
  readonly dataDir: string;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or the signal name) once the process has exited. */
  readonly exited: Promise<number | string>;
}

/** Options of {@link startNodeProcess}. */
export interface StartNodeProcessInit {
  readonly dataDir?: string;
  /** `plexus.yaml` contents, written into the data directory's parent and passed with --config. */
  readonly config?: string;
  /** @default ['--dev', '--demo'] */
  readonly flags?: readonly string[];
  /** @default 0 (a free port) */
  readonly port?: number;
  /** @default 45000 */
  readonly timeoutMs?: number;
  /** The working directory of the process. @default this process's */
  readonly cwd?: string;
}

/** Spawns `plexus start --port 0 --data DIR …` and waits for its listening line. */
export async function startNodeProcess(init: StartNodeProcessInit = {}): Promise<NodeProcess> {
  const dataDir = init.dataDir ?? join(tempDir(), 'data');
  const args = [
    BIN,
    'start',
    '--port',
    String(init.port ?? 0),
    '--data',
    dataDir,
    ...(init.flags ?? ['--dev', '--demo']),
  ];
  if (init.config !== undefined) {
    const file = join(tempDir('plexus-e2e-config-'), 'plexus.yaml');
    writeFileSync(file, init.config);
    args.push('--config', file);
  }
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PLEXUS_NODE: '' },
    ...(init.cwd === undefined ? {} : { cwd: init.cwd }),
  });
  children.add(child);
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const exited = new Promise<number | string>((done) => {
    child.once('exit', (code, signal) => {
      children.delete(child);
      done(code ?? signal ?? 'unknown');
    });
  });
  const timeoutMs = init.timeoutMs ?? 45_000;
  const match = await new Promise<RegExpExecArray>((done, fail) => {
    const timer = setTimeout(() => {
      fail(new Error(`node did not print its URL within ${timeoutMs} ms\nstdout: ${out}\nstderr: ${err}`));
    }, timeoutMs);
    const check = (): void => {
      const m = /plexus node (\S+) listening on (\S+)/.exec(out);
      if (m !== null) {
        clearTimeout(timer);
        done(m);
      }
    };
    child.stdout.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      fail(new Error(`node exited (${String(code)}) before listening\nstdout: ${out}\nstderr: ${err}`));
    });
  });
  return {
    child,
    url: match[2] as string,
    nodeId: match[1] as string,
    dataDir,
    stdout: () => out,
    stderr: () => err,
    exited,
  };
}

/** Waits for a process to exit, at most `timeoutMs`; rejects when it does not. */
export async function exitOf(node: NodeProcess, timeoutMs = 20_000): Promise<number | string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, fail) => {
    timer = setTimeout(() => {
      fail(new Error(`node did not exit within ${timeoutMs} ms\nstderr: ${node.stderr()}`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([node.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Kills every child still running (SIGKILL, by pid) and removes the temporary directories. */
export async function cleanup(): Promise<void> {
  const waits = [...children].map(
    (child) =>
      new Promise<void>((done) => {
        child.once('exit', () => {
          done();
        });
        child.kill('SIGKILL');
        setTimeout(done, 5000).unref();
      }),
  );
  await Promise.all(waits);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A port nothing listens on now (bound to 0, then released). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return port;
}

/** Polls `check` every 50 ms until it returns a value other than undefined, at most `timeoutMs`. */
export function eventually<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 15_000,
): Promise<T> {
  return pollUntilValue(what, check, { limitMs: timeoutMs, everyMs: 50 });
}

/** An ESRP v1 request for `verb` whose whole input is `data` (the JSON input named `input`). */
export function esrpRequest(
  verb: string,
  data: unknown,
  mode: 'sync' | 'async' = 'sync',
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const dot = verb.lastIndexOf('.');
  return {
    esrp_version: '1.0',
    request_id: crypto.randomUUID(),
    timestamp: new Date().toISOString(),
    caller: { system: 'e2e' },
    target: { service: verb.slice(0, dot), operation: verb.slice(dot + 1) },
    mode: { type: mode, timeout_ms: 30_000 },
    inputs: [
      {
        name: 'input',
        content_type: 'application/json',
        data: JSON.stringify(data),
        encoding: 'utf-8',
        metadata: null,
      },
    ],
    params: null,
    ...extra,
  };
}

/** The JSON result of an ESRP response's single `result` output. */
export function resultOf(body: unknown): unknown {
  const outputs = (body as { outputs?: { name: string; data: string }[] }).outputs ?? [];
  const result = outputs.find((o) => o.name === 'result');
  return result === undefined ? undefined : JSON.parse(result.data);
}

/** A parsed JSON body, loosely typed for assertions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Body = any;

/** POSTs JSON (or raw text) and returns status, headers and parsed body. */
export async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: Body }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, headers: response.headers, body: parsed };
}

/** GETs JSON. */
export async function get(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Body }> {
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(30_000) });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, body: parsed };
}

/** API keys of three callers (two tenants and one bound to no tenant) and the node config naming them. */
export function tenantKeys(): {
  readonly acme: GeneratedApiKey;
  readonly globex: GeneratedApiKey;
  readonly ops: GeneratedApiKey;
  readonly config: string;
} {
  const acme = generateApiKey();
  const globex = generateApiKey();
  const ops = generateApiKey(); // authenticated, bound to no tenant
  const config = `auth:
  apiKeys:
    - { hash: ${acme.hash}, subject: alice, tenant: acme }
    - { hash: ${globex.hash}, subject: bob, tenant: globex }
    - { hash: ${ops.hash}, subject: ops }
`;
  return { acme, globex, ops, config };
}
