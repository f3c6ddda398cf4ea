/**
 * E2E: eras at run time (seed 002 §10) and recovery hints (§8.2) on every face of a real node
 * process. `plexus mock` serves a manifest with a deprecated era (`old.greet@1`, sunset in
 * 2999), an era past its sunset date by the clock (`gone.greet@1`, sunset 2021-01-01) and
 * their replacement (`fresh.greet@1`). Needs dist/ (`npm test` builds first).
 */
import { execFile, spawn, type ChildProcessByStdio } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateEsrpResponse } from '../../src/core/esrp/response.js';
import { openRpcSocket } from '../support/e2e-fixture.js';
import { BIN, built, cleanup, esrpRequest, eventually, post, tempDir, type Body } from './harness.js';

const MANIFEST = `name: eras-e2e
verbs:
  old.greet:
    version: 1
    status: deprecated
    deprecated: 2025-01-01
    sunset: 2999-01-01
    replacement: fresh.greet@1
    migration: https://example.test/migrate-greet
    input: { name: string }
    output: { text: string }
    category: query
  gone.greet:
    version: 1
    status: deprecated
    deprecated: 2020-01-01
    sunset: 2021-01-01
    replacement: fresh.greet@1
    migration: https://example.test/migrate-greet
    input: { name: string }
    output: { text: string }
    category: query
  fresh.greet:
    version: 1
    input: { name: string }
    output: { text: string }
    category: query
`;

/** 2025-01-01T00:00:00Z in Unix seconds: the RFC 9745 `Deprecation` value of old.greet@1. */
const OLD_DEPRECATED = `@${Date.parse('2025-01-01T00:00:00Z') / 1000}`;

let child: ChildProcessByStdio<null, Readable, Readable> | undefined;
let url = '';
let manifestFile = '';

/** Starts `plexus mock --manifest FILE --port 0` and waits (bounded) for its listening line. */
async function startMock(file: string): Promise<string> {
  const proc = spawn(process.execPath, [BIN, 'mock', '--manifest', file, '--port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PLEXUS_NODE: '' },
  });
  child = proc;
  let out = '';
  let err = '';
  proc.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`plexus mock printed no URL within 20 s\nstdout: ${out}\nstderr: ${err}`));
    }, 20_000);
    proc.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const m = /listening on (\S+)/.exec(out);
      if (m !== null) {
        clearTimeout(timer);
        resolve(m[1] as string);
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`plexus mock exited (${String(code)})\nstdout: ${out}\nstderr: ${err}`));
    });
  });
}

/** Runs the CLI to completion (bounded) and returns its exit code and output. */
function runCli(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { timeout: 30_000, env: { ...process.env, PLEXUS_NODE: '' } },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** One JSON-RPC call over a fresh WebSocket: every message received until its response. */
async function wsCall(method: string, params: unknown, id: number): Promise<Body[]> {
  const ws = await openRpcSocket(url);
  try {
    const received: Body[] = [];
    const done = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`no response to call ${id}; got ${JSON.stringify(received)}`));
      }, 15_000);
      ws.on('message', (data: Buffer) => {
        const message = JSON.parse(data.toString('utf8'));
        received.push(message);
        if (message.id === id && !('method' in message)) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    await done;
    return received;
  } finally {
    ws.terminate();
  }
}

function help(to: string, verb: string, input: unknown): Record<string, unknown> {
  return { id: randomUUID(), from: 'e2e-peer', to, verb: 'HELP', data: { verb, input } };
}

beforeAll(async () => {
  expect(built(), 'run `npm run build` first').toBe(true);
  manifestFile = join(tempDir(), 'eras.manifest.yaml');
  writeFileSync(manifestFile, MANIFEST);
  url = await startMock(manifestFile);
});

afterAll(async () => {
  const proc = child;
  if (proc !== undefined && proc.exitCode === null) {
    const exited = new Promise<void>((resolve) => {
      proc.once('exit', () => {
        resolve();
      });
      setTimeout(resolve, 5000).unref();
    });
    proc.kill('SIGTERM');
    await exited;
  }
  await cleanup();
});

describe('ESRP face', () => {
  it('answers a deprecated era with Deprecation / Sunset / Link headers and warnings in the output metadata', async () => {
    const r = await post(`${url}/v1/execute`, esrpRequest('old.greet', { name: 'ada' }));
    expect(r.status).toBe(200);
    expect(validateEsrpResponse(r.body)).toEqual([]);
    expect(r.body.status).toBe('succeeded');
    expect(r.headers.get('deprecation')).toBe(OLD_DEPRECATED);
    expect(r.headers.get('sunset')).toBe(new Date('2999-01-01T00:00:00Z').toUTCString());
    expect(r.headers.get('link')).toBe('<https://example.test/migrate-greet>; rel="deprecation"');
    const warning = r.body.outputs[0].metadata.warnings[0];
    expect(warning).toMatchObject({
      type: 'deprecation',
      verb: 'old.greet@1',
      deprecated_at: '2025-01-01',
      sunset_at: '2999-01-01',
      replacement: 'fresh.greet@1',
      migration_guide: 'https://example.test/migrate-greet',
    });
    expect(JSON.parse(r.body.outputs[0].data as string)).toHaveProperty('text');
  });

  it('adds nothing to a stable era', async () => {
    const r = await post(`${url}/v1/execute`, esrpRequest('fresh.greet', { name: 'ada' }));
    expect(r.status).toBe(200);
    expect(r.headers.get('deprecation')).toBeNull();
    expect(r.body.outputs[0].metadata).toBeNull();
  });

  it('shows the warning on the async answer and on GET /v1/jobs/{id}', async () => {
    const accepted = await post(`${url}/v1/jobs`, esrpRequest('old.greet', { name: 'bo' }, 'async'));
    expect(accepted.status).toBe(202);
    expect(accepted.headers.get('deprecation')).toBe(OLD_DEPRECATED);
    const jobId = accepted.body.job.job_id as string;
    const done = await eventually('the job to finish', async () => {
      const res = await fetch(`${url}/v1/jobs/${jobId}`, { signal: AbortSignal.timeout(10_000) });
      const body = (await res.json()) as Body;
      return body.status === 'succeeded' ? { headers: res.headers, body } : undefined;
    });
    expect(validateEsrpResponse(done.body)).toEqual([]);
    expect(done.headers.get('deprecation')).toBe(OLD_DEPRECATED);
    expect(done.body.outputs[0].metadata.warnings[0].verb).toBe('old.greet@1');
  });

  it('refuses an era past its sunset with 410 and the fallback verb, before the handler runs', async () => {
    const r = await post(`${url}/v1/execute`, esrpRequest('gone.greet', { name: 'ada' }));
    expect(r.status).toBe(410);
    expect(validateEsrpResponse(r.body)).toEqual([]);
    expect(r.body.job).toBeUndefined(); // refused before a job existed
    expect(r.body.error).toMatchObject({
      code: 'INVALID_INPUT_SEMANTIC',
      retryable: false,
      details: {
        plexus_code: 'VERB_SUNSET',
        category: 'not_found',
        fallback_verb: 'fresh.greet@1',
        verb: 'gone.greet',
        replacement: 'fresh.greet@1',
        sunset_at: '2021-01-01',
        migration_guide: 'https://example.test/migrate-greet',
      },
    });
    expect(r.body.error.details.suggested_action).toContain('fresh.greet@1');
    expect(r.body.error.message).toContain('call fresh.greet@1 instead');
  });

  it('keeps refusing a sunset era whatever the input, and reports bad input of a live era with hints', async () => {
    const sunsetBad = await post(`${url}/v1/execute`, esrpRequest('gone.greet', { name: 5 }));
    expect(sunsetBad.status).toBe(410);
    const bad = await post(`${url}/v1/execute`, esrpRequest('old.greet', { name: 5 }));
    expect(bad.status).toBe(400);
    expect(validateEsrpResponse(bad.body)).toEqual([]);
    expect(bad.body.error.details).toMatchObject({ category: 'invalid_input', verb: 'old.greet' });
    expect(typeof bad.body.error.details.suggested_action).toBe('string');
    const broken = await post(`${url}/v1/execute`, '{"esrp_version": "1.0", ');
    expect(broken.status).toBe(400);
    expect(broken.body.error.details).toMatchObject({
      plexus_code: 'PARSE_ERROR',
      category: 'invalid_input',
    });
  });
});

describe('Emergence face', () => {
  it('answers DONE with _x_warnings for a deprecated era', async () => {
    const message = help('old', 'old.greet', { name: 'ada' });
    const r = await post(`${url}/emergence`, message);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: message['id'], verb: 'DONE', from: 'old', to: 'e2e-peer' });
    expect(r.body.data.result).toHaveProperty('text');
    expect(r.body._x_warnings[0]).toMatchObject({ verb: 'old.greet@1', replacement: 'fresh.greet@1' });
    expect(r.headers.get('deprecation')).toBe(OLD_DEPRECATED);
    expect(
      Object.keys(r.body as object)
        .filter((k) => !k.startsWith('_x_'))
        .sort(),
    ).toEqual(['data', 'from', 'id', 'to', 'verb']);
  });

  it('answers ERROR 410 with the fallback verb in _x_ keys for a sunset era', async () => {
    const r = await post(`${url}/emergence`, help('gone', 'gone.greet', { name: 'ada' }));
    expect(r.status).toBe(410);
    expect(r.body.verb).toBe('ERROR');
    expect(r.body.data).toEqual({ code: 410, msg: expect.stringContaining('fresh.greet@1') });
    expect(r.body).toMatchObject({
      _x_category: 'not_found',
      _x_fallback_verb: 'fresh.greet@1',
      _x_verb: 'gone.greet',
      _x_plexus_error: { code: 'VERB_SUNSET' },
    });
    expect(r.body._x_suggested_action).toContain('fresh.greet@1');
  });

  it('answers malformed messages with ERROR 400 carrying the recovery keys', async () => {
    const r = await post(`${url}/emergence`, { id: 'not-a-uuid', verb: 'HELP' });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ verb: 'ERROR', _x_category: 'invalid_input' });
    expect(typeof r.body._x_suggested_action).toBe('string');
  });
});

describe('WebSocket JSON-RPC face', () => {
  it('sends a plexus.warning notification before the result of a deprecated era', async () => {
    const messages = await wsCall('old.greet', { name: 'ada' }, 7);
    expect(messages).toHaveLength(2);
    expect(messages[0]).toMatchObject({
      jsonrpc: '2.0',
      method: 'plexus.warning',
      params: { id: 7, warnings: [{ verb: 'old.greet@1', replacement: 'fresh.greet@1' }] },
    });
    expect(messages[0]).not.toHaveProperty('id');
    expect(messages[1]).toMatchObject({ jsonrpc: '2.0', id: 7, result: { text: expect.any(String) } });
  });

  it('answers a sunset era with −32601 and the fallback verb in error.data', async () => {
    const messages = await wsCall('gone.greet', { name: 'ada' }, 8);
    expect(messages).toHaveLength(1);
    expect(messages[0].error).toMatchObject({
      code: -32601,
      data: {
        code: 'VERB_SUNSET',
        category: 'not_found',
        fallback_verb: 'fresh.greet@1',
        verb: 'gone.greet',
        retryable: false,
      },
    });
    expect(messages[0].error.message).toContain('fresh.greet@1');
  });

  it('answers bad input of a deprecated era with −32602 and recovery hints', async () => {
    const messages = await wsCall('old.greet', { name: 5 }, 9);
    const last = messages[messages.length - 1];
    expect(last.error).toMatchObject({
      code: -32602,
      data: { category: 'invalid_input', verb: 'old.greet' },
    });
  });
});

describe('plexus call', () => {
  it('prints the deprecation warning on stderr and the result on stdout', async () => {
    const r = await runCli(['call', 'old.greet', '--node', url, '--data', '{"name":"ada"}']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('plexus: warning: old.greet@1 is deprecated since 2025-01-01');
    expect(r.stdout).toContain('text');
    expect(r.stdout).not.toContain('deprecated');
  });

  it('fails on a sunset era naming the verb to use instead', async () => {
    const r = await runCli(['call', 'gone.greet', '--node', url, '--data', '{"name":"ada"}']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('fresh.greet@1');
  });
});
