// Issue 11 item 12: `plexus start --agent FILE` and `agents:` in plexus.yaml load ES modules
// exporting SDK agents; every module that cannot be used fails `start` with one line naming
// the file and the reason. (On the original main, --agent and `agents:` do not exist.)
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAgentModules } from '../../src/cli/agent-modules.js';
import { parseNodeConfigText } from '../../src/node/index.js';
import { agentsExportedBy } from '../../src/sdk/agent-exports.js';
import { agent, verb } from '../../src/sdk/index.js';
import { runCli } from '../cli/run-cli.js';
import { ROOT, built, cleanup, tempDir } from '../e2e/harness.js';

const SDK = pathToFileURL(join(ROOT, 'dist', 'sdk', 'index.js')).href;
const HEAD = `import { agent, verb } from '${SDK}';
const schema = { type: 'object' };
const v = (name) => verb(name, { input: schema, output: schema }, (input) => input);
`;

let dir: string;
/** Writes a module into the temp directory and returns its absolute path. */
function module(name: string, body: string, head = HEAD): string {
  const file = join(dir, name);
  writeFileSync(file, `${head}${body}`);
  return file;
}

/**
 * What loading each list of modules gives ('ok' or the error message), through Node's own
 * `import()` in one child process (Vitest's module loader would stand in for it here).
 */
function loadMessages(cases: readonly (readonly string[])[]): string[] {
  const loader = pathToFileURL(join(ROOT, 'dist', 'cli', 'agent-modules.js')).href;
  const script = `import { loadAgentModules } from '${loader}';
const out = [];
for (const files of ${JSON.stringify(cases)}) {
  out.push(await loadAgentModules(files).then(() => 'ok', (e) => e.message));
}
process.stdout.write(JSON.stringify(out));`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as string[];
}

beforeAll(() => {
  expect(built(), 'run `npm run build` first').toBe(true);
  dir = tempDir('plexus-agent-modules-');
});
afterAll(cleanup);

describe('which exports count', () => {
  it('takes the default export, named exports and arrays of agents; the same agent once', async () => {
    const file = module(
      'many.mjs',
      `const a = agent('alpha', [v('alpha.one')]);
export default a;
export const alsoA = a;
export const beta = agent('beta', [v('beta.one')]);
export const pair = [agent('gamma', [v('gamma.one')]), agent('delta', [v('delta.one')])];
export const helper = () => 1;
export const aVerb = v('zeta.one');
export const names = ['not', 'agents'];
`,
    );
    const loaded = await loadAgentModules([file, file]);
    expect(loaded.map((a) => [a.spec.id, a.exportName])).toEqual([
      ['alpha', 'default'],
      ['beta', 'beta'],
      ['gamma', 'pair[0]'],
      ['delta', 'pair[1]'],
    ]);
    expect(loaded.every((a) => a.file === file)).toBe(true);
  });

  it('recognises agents by shape, whichever copy of the SDK made them', () => {
    const spec = agent('local', [verb('local.one', { input: true, output: true }, () => null)]);
    expect(agentsExportedBy({ default: spec, other: { id: 'x', verbs: [] } }).agents).toEqual([
      { spec, exportName: 'default' },
    ]);
  });
});

describe('a module that cannot be used fails with its file and the reason', () => {
  it('names the file and the reason for every kind of unusable module', () => {
    const cases: [string, string, RegExp][] = [
      [
        module('none.mjs', `export const x = 1;`),
        'none.mjs',
        /: it exports no agent \(exports: x\); export one/,
      ],
      [
        module('verbs.mjs', `export const greet = v('greet.hello');`),
        'verbs.mjs',
        /: it exports verbs \(greet\) but no agent: group them with agent\(id, \[verbs\]\)/,
      ],
      [
        module('factory.mjs', `export default () => agent('f', [v('f.one')]);`),
        'factory.mjs',
        /: its default export is a function; export the agent itself/,
      ],
      [
        module('mixed.mjs', `export const all = [agent('m', [v('m.one')]), 42];`),
        'mixed.mjs',
        /: export "all" is a list of agents, but item 1 is not an agent/,
      ],
      [
        module('throws.mjs', `throw new RangeError('no configuration for the agent');`),
        'throws.mjs',
        /: it threw while loading \(at \/.*throws\.mjs:4:7\): RangeError: no configuration for the agent$/,
      ],
      [
        module('dep.mjs', `import 'plexus-no-such-package';`),
        'dep.mjs',
        /: an import of the module failed: Cannot find package 'plexus-no-such-package'/,
      ],
      [
        module('syntax.mjs', `export default agent('s', [v('s.one')];\n`),
        'syntax.mjs',
        /: syntax error at \/.*syntax\.mjs:4: /,
      ],
      [join(dir, 'missing.js'), 'missing.js', /: no such file$/],
      [join(dir, 'folder'), 'folder', /: it is a directory; name the module file/],
      [
        module('agent.ts', `export default 1;\n`, ''),
        'agent.ts',
        /Unknown file extension "\.ts".*compile it first/,
      ],
    ];
    mkdirSync(join(dir, 'folder'));
    const messages = loadMessages(cases.map(([file]) => [file]));
    cases.forEach(([file, name, expected], i) => {
      const message = messages[i] ?? '';
      expect(message, name).toContain(`cannot load agent module ${file}: `);
      expect(message, name).toMatch(expected);
    });
  });

  it('refuses two different agents with one id, naming both places', () => {
    const one = module('one.mjs', `export default agent('same', [v('same.one')]);`);
    const two = module('two.mjs', `export const again = agent('same', [v('same.two')]);`);
    expect(
      loadMessages([
        [one, two],
        [one, one],
      ]),
    ).toEqual([
      `two agents have the id "same": export default of ${one} and export again of ${two}; agent ids must be unique`,
      'ok',
    ]);
  });
});

describe('agents: in plexus.yaml', () => {
  it('resolves the paths against the file, and checks them', () => {
    const base = join(dir, 'conf');
    expect(parseNodeConfigText('agents: [./a.js, /abs/b.js]', 'plexus.yaml', base).agents).toEqual([
      join(base, 'a.js'),
      '/abs/b.js',
    ]);
    expect(() => parseNodeConfigText('agents: ./a.js', 'plexus.yaml')).toThrow(
      'plexus.yaml: "agents" must be a list, got "./a.js"',
    );
    expect(() => parseNodeConfigText('agents: ["", 3]', 'plexus.yaml')).toThrow(
      'plexus.yaml: "agents[0]" must be a non-empty string',
    );
  });
});

describe('plexus start with an unusable agent module', () => {
  it('exits 1 with one line naming the file, resolving --agent against the working directory', async () => {
    const run = await runCli(
      ['start', '--port', '0', '--data', join(dir, 'd'), '--agent', './nope.js'],
      '',
      dir,
    );
    expect(run.code).toBe(1);
    expect(run.err).toBe(`plexus: cannot load agent module ${join(dir, 'nope.js')}: no such file\n`);
    expect(run.out).toBe('');
  });

  it('names a module listed in plexus.yaml against the yaml file', async () => {
    const conf = join(dir, 'conf2');
    mkdirSync(conf);
    writeFileSync(join(conf, 'plexus.yaml'), 'agents: [./none.mjs]\n');
    module('conf2/none.mjs', `export const x = 1;`);
    const run = await runCli(['start', '--port', '0', '--config', join(conf, 'plexus.yaml')], '', dir);
    expect(run.code).toBe(1);
    expect(run.err).toContain(
      `plexus: cannot load agent module ${join(conf, 'none.mjs')}: it exports no agent`,
    );
  });
});
