import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  parseJqPath,
  promptText,
  renderOutput,
  renderTable,
  selectJq,
} from '../../src/cli/call-projection.js';
import { runCall, type CallOptions, type CallTerminal } from '../../src/cli/commands/call.js';
import { askYesNo } from '../../src/cli/confirm.js';
import { capturedIo } from '../../src/cli/io.js';
import type { JsonValue } from '../../src/core/json.js';
import type { VerbSpec } from '../../src/core/records/verb-spec.js';
import type { JsonSchema } from '../../src/core/schema-validator.js';
import { checkedInput } from '../../src/node/demo/esrp-input.js';
import { createNode, type Node } from '../../src/node/index.js';
import { mockInputSchema } from '../../src/node/mock/mock-agents.js';
import { defineAgent } from '../../src/runtime/index.js';
import { runCli } from './run-cli.js';

// `plexus call` and projection hints (seed 002 Part V) against a real node whose agent
// registers verb specs carrying cli:prompt, cli:json and cli:table.
const root = resolve(fileURLToPath(import.meta.url), '../../..');
const SCHEMA = 'https://json-schema.org/draft/2020-12/schema';
const dirs: string[] = [];
let node: Node;
const burned: string[] = [];

const nameInput: JsonSchema = {
  $schema: SCHEMA,
  type: 'object',
  properties: { name: { type: 'string', minLength: 1 } },
  required: ['name'],
  additionalProperties: false,
};
const anyInput: JsonSchema = { $schema: SCHEMA, type: 'object' };
const listOutput: JsonSchema = {
  $schema: SCHEMA,
  type: 'object',
  properties: {
    items: {
      type: 'array',
      items: { type: 'object', properties: { name: { type: 'string' }, size: { type: 'integer' } } },
    },
  },
  required: ['items'],
};

function spec(
  name: string,
  input: JsonSchema,
  output: JsonSchema,
  projection: VerbSpec['projection'],
): VerbSpec {
  return {
    name,
    version: 1,
    status: 'stable',
    input,
    output,
    effects: {},
    capabilities: [],
    category: name.endsWith('burn') ? 'mutation' : 'query',
    deterministic: true,
    ...(projection === undefined ? {} : { projection }),
  };
}

const specs = [
  spec(
    'vault.secret.burn',
    nameInput,
    { $schema: SCHEMA, type: 'object' },
    {
      'cli:prompt': { template: 'Burn the secret {name} for good? [y/N]' },
    },
  ),
  spec('vault.secret.list', anyInput, listOutput, {
    'cli:json': { jq: '.items[].name' },
    'cli:table': { jq: '.items' },
  }),
  spec('vault.secret.show', nameInput, { $schema: SCHEMA, type: 'object' }, { 'cli:json': {} }),
];

const ITEMS = [
  { name: 'alpha', size: 3 },
  { name: 'beta', size: 12 },
];

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'plexus-call-projection-'));
  dirs.push(dir);
  const vault = defineAgent({
    card: {
      id: 'vault.secret',
      name: 'Vault',
      version: '1.0.0',
      tier: 'L3',
      capabilities: specs.map((s) => ({ verb: s.name, input: mockInputSchema(s.input), output: s.output })),
    },
    verbs: specs,
    create: () => ({
      'vault.secret.burn': (input) => {
        const { name } = checkedInput(input, nameInput) as { name: string };
        burned.push(name);
        return { burned: name };
      },
      'vault.secret.list': () => ({ items: ITEMS }),
      'vault.secret.show': (input) => ({ ...(checkedInput(input, nameInput) as object), secret: 's3cr3t' }),
    }),
  });
  node = createNode({
    dataDir: dir,
    store: 'memory',
    port: 0,
    dev: true,
    primitives: false,
    agents: [vault],
  });
  await node.start();
});

afterAll(async () => {
  await node.stop({ drainMs: 0 });
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function options(data: JsonValue | undefined, extra: Partial<CallOptions> = {}): CallOptions {
  return {
    node: node.url,
    input: [],
    async: false,
    follow: false,
    json: false,
    ...(data === undefined ? {} : { data: JSON.stringify(data) }),
    ...extra,
  };
}

function terminal(init: Partial<CallTerminal> & { answers?: string[]; asked?: string[] } = {}): CallTerminal {
  const answers = init.answers ?? [];
  return {
    isTTY: false,
    onInterrupt: () => () => undefined,
    interactive: init.interactive ?? false,
    stdoutIsTTY: init.stdoutIsTTY ?? false,
    confirm: (question) => {
      init.asked?.push(question);
      return Promise.resolve((answers.shift() ?? '') === 'y');
    },
  };
}

describe('plexus call: cli:prompt', () => {
  it('refuses without a terminal and without --yes, and runs nothing', async () => {
    const io = capturedIo();
    await expect(runCall(io, 'vault.secret.burn', options({ name: 'a' }), terminal())).rejects.toMatchObject({
      message: expect.stringMatching(
        /vault\.secret\.burn asks for confirmation before it runs \(projection cli:prompt\) and there is no terminal to ask on; pass --yes/,
      ) as unknown,
    });
    expect(burned).not.toContain('a');
    expect(io.out()).toBe('');
  });

  it('exits 1 with that message from the command line when stdin is not a terminal', async () => {
    const run = await runCli(['call', 'vault.secret.burn', '--node', node.url, '--data', '{"name":"b"}']);
    expect(run.code).toBe(1);
    expect(run.err).toMatch(
      /^plexus: vault\.secret\.burn asks for confirmation .* pass --yes to run it anyway\n$/,
    );
    expect(burned).not.toContain('b');
  });

  it('runs with --yes without asking', async () => {
    const asked: string[] = [];
    const io = capturedIo();
    await runCall(
      io,
      'vault.secret.burn',
      options({ name: 'c' }, { yes: true }),
      terminal({ interactive: true, asked }),
    );
    expect(asked).toEqual([]);
    expect(burned).toContain('c');
    expect(JSON.parse(io.out())).toEqual({ burned: 'c' });
  });

  it('asks on a terminal with the filled template, and runs only on yes', async () => {
    const asked: string[] = [];
    await expect(
      runCall(
        capturedIo(),
        'vault.secret.burn',
        options({ name: 'd' }),
        terminal({ interactive: true, asked, answers: ['n'] }),
      ),
    ).rejects.toMatchObject({ code: 'CANCELLED', message: 'vault.secret.burn was not run: not confirmed' });
    expect(burned).not.toContain('d');
    const io = capturedIo();
    await runCall(
      io,
      'vault.secret.burn',
      options({ name: 'e' }),
      terminal({ interactive: true, asked, answers: ['y'] }),
    );
    expect(asked).toEqual(['Burn the secret d for good? [y/N] ', 'Burn the secret e for good? [y/N] ']);
    expect(burned).toContain('e');
  });

  it('is refused by the real binary with stdin piped (no TTY), exit 1', async () => {
    expect(
      existsSync(join(root, 'dist', 'cli', 'call-projection.js')),
      'run `npx tsc -b tsconfig.build.json` first',
    ).toBe(true);
    const child = spawn(
      process.execPath,
      [
        join(root, 'bin', 'plexus.js'),
        'call',
        'vault.secret.burn',
        '--node',
        node.url,
        '--data',
        '{"name":"f"}',
      ],
      {
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.stdin.end('y\n'); // a "y" on a pipe is not a person's answer
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    expect(code).toBe(1);
    expect(err).toMatch(/no terminal to ask on; pass --yes/);
    expect(burned).not.toContain('f');
  });
});

describe('plexus call: cli:json and cli:table', () => {
  it('prints the output as one line of JSON (cli:json)', async () => {
    const io = capturedIo();
    await runCall(io, 'vault.secret.show', options({ name: 'g' }), terminal());
    expect(io.out()).toBe('{"name":"g","secret":"s3cr3t"}\n');
  });

  it('applies the jq path of cli:json when stdout is not a terminal', async () => {
    const io = capturedIo();
    await runCall(io, 'vault.secret.list', options({}), terminal());
    expect(io.out()).toBe('"alpha"\n"beta"\n');
  });

  it('prints a table (cli:table) when stdout is a terminal', async () => {
    const io = capturedIo();
    await runCall(io, 'vault.secret.list', options({}), terminal({ stdoutIsTTY: true }));
    expect(io.out()).toBe('name   size\n-----  ----\nalpha  3\nbeta   12\n');
  });

  it('prints the whole ESRP response with --json, whatever the hints', async () => {
    const io = capturedIo();
    await runCall(io, 'vault.secret.list', options({}, { json: true }), terminal({ stdoutIsTTY: true }));
    const body = JSON.parse(io.out()) as { status: string; outputs: unknown[] };
    expect(body.status).toBe('succeeded');
    expect(body.outputs).toHaveLength(1);
  });
});

describe('plexus call --manifest', () => {
  const manifest = (text: string): string => {
    const dir = mkdtempSync(join(tmpdir(), 'plexus-call-manifest-'));
    dirs.push(dir);
    const file = join(dir, 'm.yaml');
    writeFileSync(file, text);
    return file;
  };

  it('reads the hints from the manifest instead of the node', async () => {
    const file = manifest(
      [
        'verbs:',
        '  vault.secret.show:',
        '    version: 1',
        '    input: { name: string }',
        '    output: any',
        '    category: query',
        '    projection: { "cli:prompt": { template: "Reveal {name}?" } }',
        '',
      ].join('\n'),
    );
    const refused = await runCli([
      'call',
      'vault.secret.show',
      '--node',
      node.url,
      '--data',
      '{"name":"h"}',
      '--manifest',
      file,
    ]);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/asks for confirmation/);
    const asked: string[] = [];
    const io = capturedIo();
    await runCall(
      io,
      'vault.secret.show',
      options({ name: 'h' }, { manifest: file }),
      terminal({ interactive: true, asked, answers: ['y'] }),
    );
    expect(asked).toEqual(['Reveal h? [y/N] ']);
    // The manifest has no cli:json for it: the output is printed as indented JSON.
    expect(io.out()).toBe('{\n  "name": "h",\n  "secret": "s3cr3t"\n}\n');
  });

  it('refuses a verb the manifest does not declare, and a manifest with errors', async () => {
    const file = manifest(
      'verbs:\n  other.thing.do:\n    version: 1\n    input: {}\n    output: any\n    category: query\n',
    );
    const unknown = await runCli([
      'call',
      'vault.secret.show',
      '--node',
      node.url,
      '--data',
      '{"name":"i"}',
      '--manifest',
      file,
    ]);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toMatch(/--manifest .*m\.yaml: unknown verb vault\.secret\.show/);
    const broken = manifest('verbs:\n  vault.secret.show:\n    version: 1\n');
    const bad = await runCli(['call', 'vault.secret.show', '--node', node.url, '--manifest', broken]);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/has \d+ errors?; run plexus lint/);
  });
});

describe('projection helpers', () => {
  it('fills prompt templates from the input and ends them with [y/N]', () => {
    expect(promptText('a.b.c', {}, {})).toBe('Run a.b.c? [y/N] ');
    expect(
      promptText('a.b.c', { template: 'Start {id} as {mode}? [y/N]' }, { id: 'x', mode: { k: 1 } }),
    ).toBe('Start x as {"k":1}? [y/N] ');
    expect(promptText('a.b.c', { template: 'Go {missing}' }, { other: 1 })).toBe('Go {missing} [y/N] ');
    expect(promptText('a.b.c', { template: 'Go {x}?' }, { x: 'two\nlines' })).toBe('Go two lines? [y/N] ');
  });

  it('selects with the jq path subset, and refuses the rest', () => {
    const doc = { a: { 'b c': [1, { d: 2 }] }, list: [{ n: 1 }, { n: 2 }] };
    expect(selectJq(doc, '.')).toEqual([doc]);
    expect(selectJq(doc, '.a["b c"][1].d')).toEqual([2]);
    expect(selectJq(doc, '.list[].n')).toEqual([1, 2]);
    expect(selectJq(doc, '.missing.deeper')).toEqual([null]);
    expect(selectJq(doc, '.list[5]')).toEqual([null]);
    expect(() => selectJq(doc, '.list.n')).toThrow(/cannot take \.n of a list/);
    expect(() => selectJq(5, '.[]')).toThrow(/cannot iterate over number/);
    expect(() => parseJqPath('.a | length')).toThrow(/beyond the supported paths .* column 3/);
    expect(() => parseJqPath('a')).toThrow(/must start with "\."/);
  });

  it('renders tables of objects and of scalars, and nothing for a non-list', () => {
    expect(renderTable([{ a: 1 }, { b: 'x', a: null }])).toBe('a  b\n-  -\n1\n   x\n');
    expect(renderTable([1, 'two'])).toBe('value\n-----\n1\ntwo\n');
    expect(renderTable([{ a: 'y'.repeat(60) }])).toContain(`${'y'.repeat(39)}…`);
    expect(renderTable([{ a: 1, b: 2 }], ['b'])).toBe('b\n-\n2\n');
    expect(renderTable({ a: 1 })).toBeUndefined();
  });

  it('falls back to JSON with a warning when a hint does not fit the output', () => {
    expect(renderOutput({ a: 1 }, { 'cli:table': {} }, true)).toEqual({
      text: '{\n  "a": 1\n}\n',
      warning: 'cli:table: the output is not a list; printing it as JSON',
    });
    expect(renderOutput([1], { 'cli:json': { jq: '.x' } }, false)).toEqual({
      text: '[1]\n',
      warning: 'cli:json: cannot take .x of a list; printing the whole output',
    });
    expect(renderOutput({ a: 1 }, {}, true)).toEqual({ text: '{\n  "a": 1\n}\n' });
  });
});

describe('askYesNo', () => {
  const ask = async (typed: string | null): Promise<{ answer: boolean; shown: string }> => {
    const input = new PassThrough();
    const output = new PassThrough();
    let shown = '';
    output.on('data', (d: Buffer) => (shown += d.toString('utf8')));
    const answer = askYesNo('Sure? [y/N] ', input, output);
    if (typed === null) input.end();
    else input.write(typed);
    return { answer: await answer, shown };
  };

  it('says yes only for y or yes', async () => {
    expect(await ask('y\n')).toEqual({ answer: true, shown: 'Sure? [y/N] ' });
    expect((await ask('YES\n')).answer).toBe(true);
    expect((await ask('\n')).answer).toBe(false);
    expect((await ask('yep\n')).answer).toBe(false);
    expect((await ask('n\n')).answer).toBe(false);
  });

  it('says no at the end of input', async () => {
    expect((await ask(null)).answer).toBe(false);
  });
});
