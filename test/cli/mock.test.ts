import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEsrpRequest, resultOfOutputs } from '../../src/cli/esrp-client.js';
import type { JsonValue } from '../../src/core/json.js';
import type { VerbSpec } from '../../src/core/records/verb-spec.js';
import { schemaValidator } from '../../src/core/schema-validator.js';
import { sampleMatching } from '../../src/node/mock/sample-schema.js';
import { eraStatusAt } from '../../src/runtime/pipeline/era.js';
import { eraKey, loadManifest, resolveStep } from '../../src/wire/agentese/manifest/index.js';

// `plexus mock` as users run it: the real binary (needs dist/: `npx tsc -b tsconfig.build.json`),
// called over HTTP ESRP and WebSocket JSON-RPC; every output is checked with Ajv against its
// era's output schema.
const root = resolve(fileURLToPath(import.meta.url), '../../..');
const bin = join(root, 'bin', 'plexus.js');
const manifestFile = 'examples/plexus.manifest.yaml';
const manifest = loadManifest(readFileSync(join(root, manifestFile), 'utf8'), manifestFile).manifest;
const validator = schemaValidator();

interface MockProcess {
  readonly child: ChildProcess;
  readonly url: string;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
}

/** Starts `plexus mock`; resolves once it printed its banner (bounded wait). */
async function startMock(args: string[]): Promise<MockProcess> {
  const child = spawn(process.execPath, [bin, 'mock', ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d;
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    err += d;
  });
  const exited = new Promise<number | null>((r) =>
    child.once('exit', (code) => {
      r(code);
    }),
  );
  await new Promise<void>((ready, fail) => {
    const timer = setTimeout(() => {
      fail(new Error(`the mock did not start: ${out}${err}`));
    }, 60_000);
    const check = (): void => {
      if (out.includes('press Ctrl-C')) {
        clearTimeout(timer);
        ready();
      }
    };
    child.stdout.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      fail(new Error(`the mock exited with ${String(code)}: ${out}${err}`));
    });
  });
  const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
  if (url === undefined) throw new Error(`no URL in ${out}`);
  return { child, url, stdout: () => out, stderr: () => err, exited };
}

async function esrp(
  url: string,
  verb: string,
  data: JsonValue,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const request = buildEsrpRequest({ verb, data, async: false, timeoutMs: 10_000 });
  const res = await fetch(`${url}/v1/execute`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(request),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** JSON-RPC calls over one WebSocket; resolves with the replies by id (notifications kept apart). */
async function rpc(
  url: string,
  calls: { method: string; params: JsonValue }[],
): Promise<{ replies: Map<number, Record<string, unknown>>; notifications: Record<string, unknown>[] }> {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/rpc`);
  try {
    await new Promise<void>((ok, fail) => {
      ws.once('open', () => {
        ok();
      });
      ws.once('error', fail);
    });
    const replies = new Map<number, Record<string, unknown>>();
    const notifications: Record<string, unknown>[] = [];
    const done = new Promise<void>((ok, fail) => {
      const timer = setTimeout(() => {
        fail(new Error(`only ${replies.size} of ${calls.length} replies`));
      }, 30_000);
      ws.on('message', (raw: Buffer) => {
        const message = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
        if (typeof message['id'] === 'number') replies.set(message['id'], message);
        else notifications.push(message);
        if (replies.size === calls.length) {
          clearTimeout(timer);
          ok();
        }
      });
    });
    calls.forEach((c, id) => {
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, method: c.method, params: c.params }));
    });
    await done;
    return { replies, notifications };
  } finally {
    ws.terminate();
  }
}

function inputOf(spec: VerbSpec, tag = 'input'): JsonValue {
  return sampleMatching(spec.input, `${tag}:${eraKey(spec.name, spec.version)}`, validator);
}

function problems(spec: VerbSpec, output: unknown): string[] {
  return validator.validate(spec.output, output).map((p) => `${p.pointer}: ${p.message}`);
}

// Eras still served today (a deprecated era whose sunset date has passed is sunset by then).
const eras = manifest.verbs.filter((v) => eraStatusAt(v, Date.now()) !== 'sunset');
const sunset = manifest.verbs.filter((v) => eraStatusAt(v, Date.now()) === 'sunset');
const preferred = [...new Set(eras.map((v) => v.name))].map(
  (name) => resolveStep(manifest, name) as VerbSpec,
);

describe('plexus mock (the binary)', () => {
  let mock: MockProcess;

  beforeAll(async () => {
    expect(
      existsSync(join(root, 'dist', 'cli', 'commands', 'mock.js')),
      'run `npx tsc -b tsconfig.build.json` first',
    ).toBe(true);
    mock = await startMock(['--manifest', manifestFile, '--port', '0']);
  }, 90_000);

  afterAll(() => {
    if (mock.child.exitCode === null) mock.child.kill('SIGKILL');
  });

  it('prints its URL, then every era it serves', () => {
    const lines = mock.stdout().split('\n');
    expect(lines[0]).toMatch(
      /^plexus mock of examples\/plexus\.manifest\.yaml listening on http:\/\/127\.0\.0\.1:\d+$/,
    );
    expect(eras.length).toBe(5);
    for (const era of [...eras, ...sunset]) {
      expect(mock.stdout()).toContain(`    ${eraKey(era.name, era.version)} `);
    }
    expect(mock.stdout()).toMatch(
      /soul\.memory\.recall@1 .*sunset: refused with its migration pointer, only as soul\.memory\.recall@1/,
    );
    expect(mock.stdout()).toMatch(/try {5}plexus call \S+ --node http/);
  });

  it('lists one agent per namespace on its discovery face', async () => {
    const res = await fetch(`${mock.url}/agents`);
    const body = (await res.json()) as { agents: { id: string; capabilities: { verb: string }[] }[] };
    expect(body.agents.map((a) => a.id)).toEqual(['atelier', 'soul', 'town', 'void']);
    const soul = body.agents.find((a) => a.id === 'soul');
    // The era a bare name reaches comes first.
    expect(soul?.capabilities.map((c) => c.verb)).toEqual(['soul.memory.recall@2', 'soul.memory.recall@1']);
  });

  it('answers every verb over ESRP with an output that matches its schema, the same for the same input', async () => {
    expect(preferred.length).toBe(5);
    for (const spec of preferred) {
      const input = inputOf(spec);
      const first = await esrp(mock.url, spec.name, input);
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      expect(first.body['status']).toBe('succeeded');
      const output = resultOfOutputs(first.body['outputs']);
      expect(problems(spec, output), `${spec.name}: ${JSON.stringify(output).slice(0, 300)}`).toEqual([]);
      // The same input again (a new request id): the same output.
      const again = await esrp(mock.url, spec.name, input);
      expect(resultOfOutputs(again.body['outputs'])).toEqual(output);
      const other = await esrp(mock.url, spec.name, inputOf(spec, 'other'));
      if (
        JSON.stringify(inputOf(spec, 'other')) !== JSON.stringify(input) &&
        spec.name !== 'void.entropy.sip'
      ) {
        expect(resultOfOutputs(other.body['outputs'])).not.toEqual(output);
      }
    }
  });

  it('answers every era over WebSocket JSON-RPC, bare names reaching the preferred era', async () => {
    const calls = [
      ...eras.map((spec) => ({ method: eraKey(spec.name, spec.version), params: inputOf(spec) })),
      ...preferred.map((spec) => ({ method: spec.name, params: inputOf(spec) })),
    ];
    const { replies, notifications } = await rpc(mock.url, calls);
    calls.forEach((call, id) => {
      const spec = id < eras.length ? (eras[id] as VerbSpec) : (preferred[id - eras.length] as VerbSpec);
      const reply = replies.get(id);
      expect(reply?.['error'], `${call.method}: ${JSON.stringify(reply?.['error'])}`).toBeUndefined();
      expect(problems(spec, reply?.['result']), call.method).toEqual([]);
    });
    // recall@2 answers a list of matches (recall@1, a nullable crystal, is sunset: see below).
    const v2 = eras.findIndex((s) => s.name === 'soul.memory.recall' && s.version === 2);
    expect(Array.isArray(replies.get(v2)?.['result'])).toBe(true);
    // The stream verb streamed its list items before answering.
    const list = replies.get(eras.findIndex((s) => s.name === 'town.citizen.list'))?.['result'] as {
      citizens: unknown[];
    };
    const chunks = notifications.filter((n) => n['method'] === 'stream.data');
    expect(chunks.length).toBeGreaterThanOrEqual(Math.min(list.citizens.length, 16));
  });

  it('refuses a sunset era with its migration pointer', async () => {
    // soul.memory.recall@1 was deprecated with a sunset date (2025-12-01) that has passed.
    expect(sunset.map((v) => eraKey(v.name, v.version))).toContain('soul.memory.recall@1');
    const calls = sunset.map((spec) => ({ method: eraKey(spec.name, spec.version), params: inputOf(spec) }));
    const { replies } = await rpc(mock.url, calls);
    calls.forEach((call, id) => {
      const error = replies.get(id)?.['error'] as { code: number; data: Record<string, unknown> } | undefined;
      expect(error?.code, call.method).toBe(-32601);
      expect(error?.data['code'], call.method).toBe('VERB_SUNSET');
      expect(replies.get(id)?.['result'], call.method).toBeUndefined();
    });
    const recall = calls.findIndex((c) => c.method === 'soul.memory.recall@1');
    const data = (replies.get(recall)?.['error'] as { data: Record<string, unknown> }).data;
    expect(data['fallback_verb']).toBe('soul.memory.recall@2');
    expect(data['migration_guide']).toBe('docs/migration/v1-to-v2.md');
  });

  it('gives the same output on both faces for the same input', async () => {
    const spec = preferred.find((s) => s.name === 'atelier.session.start') as VerbSpec;
    const input = inputOf(spec, 'cross');
    const http = resultOfOutputs((await esrp(mock.url, spec.name, input)).body['outputs']);
    const { replies } = await rpc(mock.url, [{ method: spec.name, params: input }]);
    expect(replies.get(0)?.['result']).toEqual(http);
  });

  it('answers an Emergence HELP naming an era', async () => {
    const spec = eras.find((s) => s.name === 'void.entropy.sip') as VerbSpec;
    const id = randomUUID();
    const res = await fetch(`${mock.url}/emergence`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        id,
        from: 'tester',
        to: 'void',
        verb: 'HELP',
        data: { verb: 'void.entropy.sip@1', input: {} },
      }),
    });
    const body = (await res.json()) as { id: string; verb: string; data: { result?: unknown } };
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ id, verb: 'DONE' });
    expect(problems(spec, body.data.result)).toEqual([]);
  });

  it('refuses an input that does not match the input schema, on both faces', async () => {
    const bad = { builder_id: 'not-a-uuid', mode: 'solo' };
    const http = await esrp(mock.url, 'atelier.session.start', bad);
    expect(http.body['status']).toBe('failed');
    expect(JSON.stringify(http.body['error'])).toMatch(/builder_id/);
    const { replies } = await rpc(mock.url, [{ method: 'atelier.session.start@1', params: bad }]);
    expect((replies.get(0)?.['error'] as { code: number }).code).toBe(-32602);
  });

  it('gives plexus call the hints of the manifest: cli:prompt, then cli:json with its jq path', () => {
    const spec = preferred.find((s) => s.name === 'atelier.session.start') as VerbSpec;
    const call = (extra: string[]): { status: number | null; stdout: string; stderr: string } => {
      const r = spawnSync(
        process.execPath,
        [
          bin,
          'call',
          spec.name,
          '--node',
          mock.url,
          '--data',
          JSON.stringify(inputOf(spec, 'cli')),
          ...extra,
        ],
        { cwd: root, encoding: 'utf8', timeout: 30_000, input: 'y\n' },
      );
      return { status: r.status, stdout: r.stdout, stderr: r.stderr };
    };
    const refused = call([]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/atelier\.session\.start asks for confirmation .*pass --yes/);
    const ran = call(['--yes']);
    expect(ran.stderr).toBe('');
    expect(ran).toMatchObject({
      status: 0,
      stdout: expect.stringMatching(/^"[0-9a-f]{8}-[0-9a-f-]{27}"\n$/) as unknown,
    });
  });

  it('stops cleanly on SIGTERM (exit 0)', async () => {
    mock.child.kill('SIGTERM');
    expect(await mock.exited).toBe(0);
    expect(mock.stderr()).toMatch(/SIGTERM: stopping the mock\nplexus: stopped\n$/);
  });
});

describe('plexus mock (bad arguments)', () => {
  const run = (args: string[]): { status: number | null; stderr: string } => {
    const r = spawnSync(process.execPath, [bin, 'mock', ...args], {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
    });
    return { status: r.status, stderr: r.stderr };
  };

  it('prints the problems of a manifest with errors and exits 1', () => {
    const dir = mkdtempSync(join(tmpdir(), 'plexus-mock-test-'));
    try {
      const file = join(dir, 'bad.yaml');
      writeFileSync(
        file,
        'verbs:\n  a.b.c:\n    version: 1\n    input: {}\n    output: strng\n    category: query\n',
      );
      const r = run(['--manifest', file, '--port', '0']);
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(/unknown type "strng"; did you mean "string"\?/);
      expect(r.stderr).toMatch(/1 error; nothing to mock/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a bad port and a missing manifest', () => {
    expect(run(['--manifest', manifestFile, '--port', 'eighty'])).toMatchObject({
      status: 1,
      stderr: expect.stringMatching(/--port must be a whole number/) as unknown,
    });
    expect(run(['--manifest', 'nope.yaml', '--port', '0'])).toMatchObject({
      status: 1,
      stderr: expect.stringMatching(/cannot read nope\.yaml: no such file/) as unknown,
    });
  });
});
