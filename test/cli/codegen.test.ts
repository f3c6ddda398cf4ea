import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNode, type Node } from '../../src/node/index.js';
import { runCli } from './run-cli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EXAMPLE = join(ROOT, 'examples/plexus.manifest.yaml');
const dirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'plexus-codegen-'));
  dirs.push(dir);
  // The project is ESM: the generated module is compiled as an ES module, as in the project.
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
  return dir;
}

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The project's compiler options (tsconfig.json), with no ambient types: the module must stand alone. */
function projectOptions(): ts.CompilerOptions {
  const config = ts.readConfigFile(join(ROOT, 'tsconfig.json'), (p) => ts.sys.readFile(p));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  return { ...parsed.options, types: [], noEmit: true, noUnusedLocals: true, noUnusedParameters: true };
}

function diagnostics(files: string[]): string[] {
  const program = ts.createProgram(files, projectOptions());
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
    const at = d.file && where ? `${d.file.fileName.split('/').pop() ?? ''}:${where.line + 1}: ` : '';
    return `${at}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}

async function generate(manifest: string, dir: string): Promise<string> {
  const run = await runCli(['codegen', manifest, '--lang', 'typescript', '--out', join(dir, 'client.ts')]);
  expect(run.err).toBe('');
  expect(run.code).toBe(0);
  return readFileSync(join(dir, 'client.ts'), 'utf8');
}

describe('plexus codegen', () => {
  it('writes a module that compiles under the strict project options, standalone', async () => {
    const dir = tempDir();
    const code = await generate(EXAMPLE, dir);
    expect(code).toContain('export interface MemoryCrystal {');
    expect(code).not.toMatch(/: any\b|as any\b/);
    expect(diagnostics([join(dir, 'client.ts')])).toEqual([]);
  });

  it('gives precise types: right calls compile and wrong ones do not', async () => {
    const dir = tempDir();
    await generate(EXAMPLE, dir);
    writeFileSync(
      join(dir, 'use.ts'),
      `import { createPlexusClient, PLEXUS_VERBS, type MemoryCrystal, type RecallMatch, type PlexusVerbs } from './client.js';
const client = createPlexusClient(async () => null);
export async function use(): Promise<void> {
  const matches: readonly RecallMatch[] = await client.verbs.soul.memory.recall({ query: 'last conversation' });
  const old: MemoryCrystal | null = await client.call('soul.memory.recall@1', { query: 'x', limit: 5 });
  const started = await client.verbs.atelier.session.start({ builder_id: 'b', mode: 'solo' }, { timeoutMs: 1000 });
  const id: string = started.session_id;
  const greet: PlexusVerbs['town.citizen.greet@2024-12']['input'] = { citizen_id: 'c', message: 'hi', politeness: -1 };
  const cap: 'soul:read' = PLEXUS_VERBS['soul.memory.recall@2'].capabilities[0];
  // @ts-expect-error mode is an enum
  await client.verbs.atelier.session.start({ builder_id: 'b', mode: 'solitary' });
  // @ts-expect-error query is required
  await client.verbs.soul.memory.recall({ limit: 3 });
  // @ts-expect-error unknown era
  await client.call('soul.memory.recall@3', { query: 'x' });
  // @ts-expect-error the output of era 2 is a list, not a crystal
  const wrong: MemoryCrystal = await client.verbs.soul.memory.recall({ query: 'x' });
  // @ts-expect-error no such verb
  client.verbs.soul.memory.forget;
  void [matches, old, id, greet, cap, wrong];
}
`,
    );
    expect(diagnostics([join(dir, 'use.ts')])).toEqual([]);
    // The check is not vacuous: a wrong use is reported.
    writeFileSync(
      join(dir, 'misuse.ts'),
      `import { createPlexusClient } from './client.js';
export const n: Promise<number> = createPlexusClient(async () => null).verbs.void.entropy.sip({});
`,
    );
    expect(diagnostics([join(dir, 'misuse.ts')]).join('\n')).toMatch(/misuse\.ts:2: Type 'Promise<\{/);
  });

  it('marks deprecated eras @deprecated and documents effects and capabilities', async () => {
    const code = await generate(EXAMPLE, tempDir());
    expect(code).toMatch(
      /@deprecated deprecated since 2025-06-01; sunset 2025-12-01; use soul\.memory\.recall@2/,
    );
    expect(code).toContain('Effects: writes: session_registry; charges: tokens.');
    expect(code).toContain('@default 5');
  });

  it('handles a verb that is also the prefix of another verb', async () => {
    const dir = tempDir();
    const manifest = join(dir, 'm.yaml');
    writeFileSync(
      manifest,
      'verbs:\n  memory.search:\n    version: 1\n    input: {q: string}\n    output: [string]\n    category: query\n  memory.search.deep:\n    version: 1\n    input: {q: string}\n    output: integer\n    category: query\n',
    );
    await generate(manifest, dir);
    writeFileSync(
      join(dir, 'use.ts'),
      `import { createPlexusClient } from './client.js';
const c = createPlexusClient(async () => 1);
export const a: Promise<readonly string[]> = c.verbs.memory.search({ q: 'x' });
export const b: Promise<number> = c.verbs.memory.search.deep({ q: 'x' });
`,
    );
    expect(diagnostics([join(dir, 'use.ts')])).toEqual([]);
  });

  it('compiles for a manifest with no verbs', async () => {
    const dir = tempDir();
    const manifest = join(dir, 'empty.yaml');
    writeFileSync(manifest, 'verbs: {}\n');
    const run = await runCli(['codegen', manifest, '--out', join(dir, 'client.ts')]);
    expect(run.code).toBe(0);
    expect(run.err).toContain('warning: the manifest declares no verbs');
    expect(diagnostics([join(dir, 'client.ts')])).toEqual([]);
  });

  it('refuses a manifest with errors and writes nothing', async () => {
    const dir = tempDir();
    const manifest = join(dir, 'bad.yaml');
    writeFileSync(
      manifest,
      'verbs:\n  a.b.c:\n    version: 1\n    input: Nope\n    output: {}\n    category: query\n',
    );
    const run = await runCli(['codegen', manifest, '--out', join(dir, 'out.ts')]);
    expect(run.code).toBe(1);
    expect(run.err).toContain(`${manifest}:4:12: error: unknown type "Nope"; declare it under "types:"`);
    expect(run.err).toContain('1 error; nothing generated');
    expect(() => readFileSync(join(dir, 'out.ts'))).toThrow();
  });

  it('refuses type names that would hide a global the module uses', async () => {
    const dir = tempDir();
    const manifest = join(dir, 'm.yaml');
    writeFileSync(
      manifest,
      'types:\n  Date: string\nverbs:\n  a.b.c:\n    version: 1\n    input: Date\n    output: {}\n    category: query\n',
    );
    const run = await runCli(['codegen', manifest]);
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/Date would hide the global/);
  });

  it('writes to stdout without --out and rejects other languages', async () => {
    const run = await runCli(['codegen', EXAMPLE]);
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/^\/\/ Generated by `plexus codegen/);
    const bad = await runCli(['codegen', EXAMPLE, '--lang', 'python']);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/Allowed choices are typescript/);
  });
});

describe('the generated client against a running node', () => {
  let node: Node;
  let client: {
    call(key: string, input: unknown): Promise<unknown>;
    verbs: {
      echo: { echo(input: unknown): Promise<unknown> };
      math: { evaluate(input: unknown): Promise<unknown> };
    };
  };
  let ClientError: new (...args: never[]) => Error;

  beforeAll(async () => {
    node = createNode({ dataDir: tempDir(), port: 0, dev: true, demo: ['echo', 'math'] });
    await node.start();
    const dir = tempDir();
    const manifest = join(dir, 'demo.yaml');
    writeFileSync(
      manifest,
      [
        'types:',
        '  Thing:',
        '    name: string',
        '    tags: string[]',
        '    size: uint16?',
        'verbs:',
        '  echo.echo:',
        '    version: 1',
        '    input: Thing',
        '    output: Thing',
        '    category: query',
        '    deterministic: true',
        '  math.evaluate:',
        '    version: 1',
        '    input: {expression: string}',
        '    output: {expression: string, value: float}',
        '    category: query',
        '',
      ].join('\n'),
    );
    const code = await generate(manifest, dir);
    const js = ts.transpileModule(code, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    writeFileSync(join(dir, 'client.mjs'), js);
    const mod = (await import(pathToFileURL(join(dir, 'client.mjs')).href)) as {
      createPlexusClient(init: { url: string }): typeof client;
      PlexusClientError: typeof ClientError;
    };
    client = mod.createPlexusClient({ url: node.url });
    ClientError = mod.PlexusClientError;
  });

  afterAll(async () => {
    await node.stop({ drainMs: 0 });
  });

  it('round-trips a typed input through echo.echo over ESRP', async () => {
    const thing = { name: 'crystal', tags: ['a', 'b'], size: 7 };
    expect(await client.verbs.echo.echo(thing)).toEqual(thing);
    expect(await client.call('echo.echo@1', { name: 'x', tags: [] })).toEqual({ name: 'x', tags: [] });
  });

  it('returns the output of math.evaluate', async () => {
    expect(await client.verbs.math.evaluate({ expression: '2*(3+4)^2' })).toEqual({
      expression: '2*(3+4)^2',
      value: 98,
    });
  });

  it('rejects with a PlexusClientError carrying the node code and message', async () => {
    const error = await client.verbs.math.evaluate({ expression: '2 +' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ClientError);
    expect(error).toMatchObject({ name: 'PlexusClientError' });
    expect(error).toMatchObject({ code: 'INVALID_PARAMS' });
    expect((error as Error).message).toMatch(/expression/i);
  });
});
