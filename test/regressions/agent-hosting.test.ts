// Issue 11 item 12: a real `plexus start` hosts the agents of `--agent FILE` and of `agents:`
// in plexus.yaml (relative to the file); a handler that throws logs its stack trace on the
// node's log, while its caller gets INTERNAL without it; an agent id taken by a built-in agent
// makes start fail with a message. (On the original main, --agent and `agents:` do not exist.)
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BIN,
  ROOT,
  built,
  cleanup,
  esrpRequest,
  eventually,
  exitOf,
  post,
  resultOf,
  startNodeProcess,
  tempDir,
  type NodeProcess,
} from '../e2e/harness.js';

const SDK = pathToFileURL(join(ROOT, 'dist', 'sdk', 'index.js')).href;

const GREET = `import { agent, verb } from '${SDK}';
const input = { type: 'object', properties: { name: { type: 'string' } } };
const output = { type: 'object', required: ['text'], properties: { text: { type: 'string' } } };
export default agent('greet', [
  verb('greet.hello', { input, output }, ({ name = 'world' }) => {
    if (name === 'crash') throw new TypeError('the greeter broke');
    return { text: \`hello, \${name}\` };
  }),
]);
`;

// A second agent, listed in plexus.yaml: it calls greet.hello and emits an event.
const RELAY = `import { agent, verb } from '${SDK}';
export const relay = agent('relay', [
  verb(
    'relay.twice',
    { input: { type: 'object' }, output: true, effects: ['emits: relay.relayed'] },
    async (input, ctx) => {
      const first = await ctx.invoke('greet.hello', input);
      await ctx.emit('relay.relayed', { text: first.text });
      return { texts: [first.text, first.text] };
    },
  ),
]);
`;

let dir: string;

/** The JSON log lines among what a node printed on stdout (its banner lines are not JSON). */
function logLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Resolves once the node has printed `text` on stdout (its banner ends with "press Ctrl-C"). */
function printed(node: NodeProcess, text: string): Promise<void> {
  return new Promise((done, fail) => {
    const check = (): void => {
      if (!node.stdout().includes(text)) return;
      node.child.stdout.off('data', check);
      done();
    };
    node.child.stdout.on('data', check);
    void node.exited.then(() => {
      fail(new Error(`the node exited before printing ${text}\n${node.stderr()}`));
    });
    check();
  });
}

beforeAll(() => {
  expect(built(), 'run `npm run build` first').toBe(true);
  dir = tempDir('plexus-agent-hosting-');
  writeFileSync(join(dir, 'greet.mjs'), GREET);
  mkdirSync(join(dir, 'conf', 'agents'), { recursive: true });
  writeFileSync(join(dir, 'conf', 'agents', 'relay.mjs'), RELAY);
  writeFileSync(join(dir, 'conf', 'plexus.yaml'), 'agents: [./agents/relay.mjs]\n');
});
afterAll(cleanup);

describe('plexus start --agent FILE with agents: in plexus.yaml', () => {
  it('hosts both modules, logs a crash with its stack and keeps the stack from the caller', async () => {
    const node = await startNodeProcess({
      flags: [
        '--dev',
        '--memory',
        '--config',
        join(dir, 'conf', 'plexus.yaml'),
        '--agent',
        join(dir, 'greet.mjs'),
      ],
    });
    await printed(node, 'press Ctrl-C to stop');
    expect(node.stdout()).toContain(
      `  agents  relay: relay.twice (${join(dir, 'conf', 'agents', 'relay.mjs')})\n`,
    );
    expect(node.stdout()).toContain(`          greet: greet.hello (${join(dir, 'greet.mjs')})\n`);

    const hello = await post(`${node.url}/v1/execute`, esrpRequest('greet.hello', { name: 'Ada' }));
    expect(hello.status).toBe(200);
    expect(resultOf(hello.body)).toEqual({ text: 'hello, Ada' });

    // a nested call and an emitted event from a hosted agent
    const twice = await post(`${node.url}/v1/execute`, esrpRequest('relay.twice', { name: 'Bo' }));
    expect(resultOf(twice.body)).toEqual({ texts: ['hello, Bo', 'hello, Bo'] });

    const crash = await post(`${node.url}/v1/execute`, esrpRequest('greet.hello', { name: 'crash' }));
    expect(crash.body.status).toBe('failed');
    expect(crash.body.error.details.plexus_code).toBe('INTERNAL');
    const body = JSON.stringify(crash.body);
    expect(body).toContain('the greeter broke');
    expect(body).not.toContain('greet.mjs');
    expect(body).not.toMatch(/\bat (file:|\/|async )/);

    // the node's log (stdout, one JSON line an entry: issue 16) has the stack trace, pointing
    // into the module
    const crashed = await eventually('the crash log line', () =>
      Promise.resolve(
        logLines(node.stdout()).find((l) => l['msg'] === 'a handler crashed; its caller got INTERNAL'),
      ),
    );
    expect(crashed).toMatchObject({ level: 'error', agent: 'greet', verb: 'greet.hello' });
    expect(crashed['stack']).toContain('TypeError: the greeter broke\n');
    expect(crashed['stack']).toMatch(
      new RegExp(`\\n {4}at .*${join(dir, 'greet.mjs').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:6:`),
    );

    // still serving after the crash (the agent instance was re-created)
    const again = await post(`${node.url}/v1/execute`, esrpRequest('greet.hello', {}));
    expect(resultOf(again.body)).toEqual({ text: 'hello, world' });
    node.child.kill('SIGTERM');
    expect(await exitOf(node)).toBe(0);
  });

  it('refuses an agent whose id a built-in agent has, before listening', () => {
    writeFileSync(
      join(dir, 'state.mjs'),
      `import { agent, verb } from '${SDK}';
export default agent('state', [verb('state.peek', { input: true, output: true }, () => null)]);
`,
    );
    const run = spawnSync(
      process.execPath,
      [
        BIN,
        'start',
        '--dev',
        '--memory',
        '--port',
        '0',
        '--data',
        join(dir, 'd'),
        '--agent',
        join(dir, 'state.mjs'),
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      'plexus: two agents have the id "state": a Hyperspace primitive and an agent given to the node; give the agent another id\n',
    );
  });
});
