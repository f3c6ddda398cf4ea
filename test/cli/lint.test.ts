import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/plexus.manifest.yaml', import.meta.url));
const dirs: string[] = [];

function dirWith(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'plexus-lint-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const RECALL = (input: string, extra = ''): string =>
  `verbs:\n  soul.memory.recall:\n    version: 1\n    input:\n${input}\n    output: string | null\n    category: query\n    capabilities: [soul:read]\n${extra}`;

describe('plexus lint', () => {
  it('passes the example manifest with a summary line and exit 0', async () => {
    const run = await runCli(['lint', EXAMPLE]);
    expect(run).toEqual({
      code: 0,
      out: `${EXAMPLE}: ok — 6 eras of 5 verbs, 8 types, 0 warnings\n`,
      err: '',
    });
  });

  it('reports every problem as file:line:column, then a count, and exits 1', async () => {
    const dir = dirWith({
      'plexus.manifest.yaml':
        'types:\n  Q:\n    query: strng\n    n: uint8 = -1\nverbs:\n  soul.memory.recall:\n    version: 1\n    input: Q\n    output: Crystal\n    category: query\n    effects: [writes: x]\n',
    });
    const run = await runCli(['lint', 'plexus.manifest.yaml'], '', dir);
    expect(run.code).toBe(1);
    expect(run.err).toBe('');
    expect(run.out.split('\n')).toEqual([
      'plexus.manifest.yaml:3:12: error: unknown type "strng"; did you mean "string"? (/types/Q/query)',
      "plexus.manifest.yaml:4:16: error: the default -1 does not match the field's type: must be >= 0 (/types/Q/n)",
      'plexus.manifest.yaml:6:3: warning: soul.memory.recall@1 declares writes but requires no capability; add capabilities: [namespace:ability] (/verbs/soul.memory.recall)',
      'plexus.manifest.yaml:9:13: error: unknown type "Crystal"; declare it under "types:" (/verbs/soul.memory.recall/output)',
      'plexus.manifest.yaml:11:5: warning: soul.memory.recall@1 is a query but declares writes; make it a mutation or drop the effect (/verbs/soul.memory.recall/effects)',
      'plexus.manifest.yaml: 3 errors, 2 warnings',
      '',
    ]);
  });

  it('exits 0 when there are only warnings', async () => {
    const dir = dirWith({ 'm.yaml': `types:\n  Spare: string\n${RECALL('      query: string')}` });
    const run = await runCli(['lint', 'm.yaml'], '', dir);
    expect(run.code).toBe(0);
    expect(run.out).toBe(
      'm.yaml:2:3: warning: type Spare is not used by any verb (/types/Spare)\nm.yaml: ok — 1 era of 1 verb, 1 type, 1 warning\n',
    );
  });

  it('finds plexus.manifest.yaml, then agentese.manifest.yaml, in the working directory', async () => {
    const dir = dirWith({ 'agentese.manifest.yaml': RECALL('      query: string') });
    expect((await runCli(['lint'], '', dir)).out).toBe(
      'agentese.manifest.yaml: ok — 1 era of 1 verb, 0 types, 0 warnings\n',
    );
    writeFileSync(join(dir, 'plexus.manifest.yaml'), 'verbs: {}\n');
    expect((await runCli(['lint'], '', dir)).out).toMatch(
      /^plexus\.manifest\.yaml:1:8: warning: the manifest declares no verbs/,
    );
    const empty = dirWith({});
    const none = await runCli(['lint'], '', empty);
    expect(none.code).toBe(1);
    expect(none.err).toMatch(
      /^plexus: no manifest named here and none of plexus\.manifest\.yaml, agentese\.manifest\.yaml in /,
    );
    const missing = await runCli(['lint', 'nope.yaml'], '', empty);
    expect(missing).toMatchObject({ code: 1, err: 'plexus: cannot read nope.yaml: no such file\n' });
  });

  it('--against: breaking changes inside an era are errors located in the new file', async () => {
    const dir = dirWith({
      'old.yaml': RECALL('      query: string\n      mode: enum[fast, deep]'),
      'new.yaml': RECALL('      mode: enum[fast]\n      limit: uint8?'),
    });
    const run = await runCli(['lint', 'new.yaml', '--against', 'old.yaml'], '', dir);
    expect(run.code).toBe(1);
    expect(run.out.split('\n')).toEqual([
      'new.yaml:5:7: error: breaking change to soul.memory.recall@1: input.query: field "query" was removed; publish breaking changes as a new era (/verbs/soul.memory.recall/input)',
      'new.yaml:5:13: error: breaking change to soul.memory.recall@1: input.mode: enum value "deep" was removed; publish breaking changes as a new era (/verbs/soul.memory.recall/input/mode)',
      'new.yaml:6:14: note: additive change to soul.memory.recall@1: input.limit: new optional field "limit" (/verbs/soul.memory.recall/input/limit)',
      'new.yaml: 2 errors, 0 warnings; against old.yaml: 2 breaking changes, 1 additive change',
      '',
    ]);
  });

  it('--against: a new era with the breaking change is fine; removing an era that is not sunset is not', async () => {
    const dir = dirWith({
      'old.yaml': RECALL('      query: string'),
      'new.yaml': `${RECALL('      query: string')}  soul.memory.recall@2:\n    input: {q: string}\n    output: string\n    category: query\n    capabilities: [soul:read]\n`,
      'gone.yaml':
        'verbs:\n  soul.memory.recall@2:\n    input: {}\n    output: {}\n    category: query\n    capabilities: [soul:read]\n',
    });
    const ok = await runCli(['lint', 'new.yaml', '--against', 'old.yaml'], '', dir);
    expect(ok.code).toBe(0);
    expect(ok.out).toBe(
      'new.yaml:9:3: note: additive change to soul.memory.recall@2: new era soul.memory.recall@2 (/verbs/soul.memory.recall@2)\n' +
        'new.yaml: ok — 2 eras of 1 verb, 0 types, 0 warnings; against old.yaml: 0 breaking changes, 1 additive change\n',
    );
    const gone = await runCli(['lint', 'gone.yaml', '--against', 'old.yaml'], '', dir);
    expect(gone.code).toBe(1);
    expect(gone.out).toContain(
      'old.yaml:2:3: error: breaking change to soul.memory.recall@1: removed soul.memory.recall@1, which is stable, not sunset',
    );
  });

  it('--against: does not compare when either manifest has errors', async () => {
    const dir = dirWith({ 'old.yaml': 'verbs:\n  a.b.c: 1\n', 'new.yaml': RECALL('      query: string') });
    const run = await runCli(['lint', 'new.yaml', '--against', 'old.yaml'], '', dir);
    expect(run.code).toBe(1);
    expect(run.out).toBe(
      'old.yaml:2:10: error: verb a.b.c must be a mapping of its fields (/verbs/a.b.c)\n' +
        'not compared with old.yaml: fix the errors first\n' +
        'new.yaml: 1 error, 0 warnings\n',
    );
  });

  it('--pipeline prints the composed effects and capabilities', async () => {
    const run = await runCli(['lint', EXAMPLE, '--pipeline', 'soul.memory.recall@1,atelier.session.start']);
    expect(run.code).toBe(0);
    expect(run.out).toBe(
      [
        'pipeline soul.memory.recall@1 >> atelier.session.start',
        '  warning: soul.memory.recall@1 is deprecated until 2025-12-01; use soul.memory.recall@2',
        '  eras: soul.memory.recall@1 >> atelier.session.start@1',
        '  category: mutation',
        '  effects:',
        '    reads: memory_crystals',
        '    writes: session_registry',
        '    charges: tokens',
        '  capabilities: soul:read, atelier:write',
        `${EXAMPLE}: ok — 6 eras of 5 verbs, 8 types, 0 warnings`,
        '',
      ].join('\n'),
    );
    const bad = await runCli(['lint', EXAMPLE, '--pipeline', 'soul.memory.recall,nope.verb']);
    expect(bad.code).toBe(1);
    expect(bad.out).toContain('  error: unknown verb nope.verb');
    expect(bad.out).toContain(`${EXAMPLE}: 1 error, 0 warnings`);
  });

  it('--json prints the whole report as JSON', async () => {
    const dir = dirWith({ 'm.yaml': RECALL('      query: strin') });
    const run = await runCli(['lint', 'm.yaml', '--json', '--pipeline', 'soul.memory.recall'], '', dir);
    expect(run.code).toBe(1);
    const report = JSON.parse(run.out) as { ok: boolean; problems: unknown[]; pipeline: { steps: string[] } };
    expect(report.ok).toBe(false);
    expect(report.problems).toEqual([
      {
        file: 'm.yaml',
        line: 5,
        column: 14,
        message: 'unknown type "strin"; did you mean "string"?',
        pointer: '/verbs/soul.memory.recall/input/query',
        severity: 'error',
      },
    ]);
    expect(report.pipeline.steps).toEqual(['soul.memory.recall']);
  });
});
