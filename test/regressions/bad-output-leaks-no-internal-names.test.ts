// Issue 11, item 14 (bad output): a handler's output that fails its declared schema — a wrong
// shape, or a refusal-shaped object that is malformed or not admitted — is answered on every face
// without the runtime's internal names (`$refusal`). On the original main the caller read
// `missing required property "$refusal"` and `/$refusal/why: unknown property`.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNode, type Node } from '../../src/node/index.js';
import { defineAgent } from '../../src/runtime/index.js';
import { agent, createPlexus, remoteClient, verb } from '../../src/sdk/index.js';
import { runCli } from '../cli/run-cli.js';

const OUT = { type: 'object', required: ['text'], properties: { text: { type: 'string' } } } as const;
const dir = mkdtempSync(join(tmpdir(), 'plexus-bad-output-'));
let node: Node;

/** Verbs whose handlers return bad output (SDK verbs admit refusals; `plain.out.*` do not). */
const BAD = ['bad.out.wrong', 'bad.out.refusal', 'bad.out.refusal_text', 'plain.out.refusal'] as const;

beforeAll(async () => {
  node = createNode({
    dataDir: dir,
    port: 0,
    dev: true,
    primitives: false,
    agents: [
      defineAgent({
        card: {
          id: 'plain',
          name: 'plain',
          version: '1.0.0',
          tier: 'L3',
          capabilities: [{ verb: 'plain.out.refusal', input: true, output: OUT }],
        },
        create: () => ({ 'plain.out.refusal': () => ({ $refusal: { reason: 'not admitted here' } }) }),
      }),
    ],
  });
  await node.start();
  const plexus = createPlexus({ node });
  await plexus.register(
    agent('bad', [
      verb('bad.out.wrong', { input: true, output: OUT }, () => ({ nope: 1 }) as never),
      verb('bad.out.refusal', { input: true, output: OUT }, () => ({ $refusal: { why: 'x' } }) as never),
      verb('bad.out.refusal_text', { input: true, output: OUT }, () => ({ $refusal: 'no' }) as never),
    ]),
  );
}, 60_000);

afterAll(async () => {
  await node.stop({ drainMs: 0 });
  rmSync(dir, { recursive: true, force: true });
});

async function esrp(name: string): Promise<string> {
  const dot = name.lastIndexOf('.');
  const response = await fetch(`${node.url}/v1/execute`, {
    method: 'POST',
    body: JSON.stringify({
      esrp_version: '1.0',
      request_id: randomUUID(),
      timestamp: new Date().toISOString(),
      caller: { system: 'curl' },
      target: { service: name.slice(0, dot), operation: name.slice(dot + 1) },
      inputs: [{ name: 'input', content_type: 'application/json', data: '{}', encoding: 'utf-8' }],
    }),
  });
  return response.text();
}

async function emergence(name: string): Promise<string> {
  const response = await fetch(`${node.url}/emergence`, {
    method: 'POST',
    body: JSON.stringify({
      id: randomUUID(),
      from: 'probe',
      to: 'broadcast',
      verb: 'HELP',
      data: { verb: name, input: {} },
    }),
  });
  return response.text();
}

async function websocket(name: string): Promise<string> {
  const ws = new WebSocket(`${node.url.replace(/^http/, 'ws')}/rpc`);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const text = await new Promise<string>((resolve) => {
    ws.once('message', (data: Buffer) => {
      resolve(data.toString('utf8'));
    });
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: name, params: {} }));
  });
  ws.terminate();
  return text;
}

async function sdk(name: string): Promise<string> {
  try {
    return JSON.stringify(await remoteClient(node.url).invoke(name, {}));
  } catch (error) {
    const e = error as { message: string; details?: unknown; suggestedAction?: string };
    return JSON.stringify({ message: e.message, details: e.details, action: e.suggestedAction });
  }
}

async function cli(name: string): Promise<string> {
  const run = await runCli(['call', name, '--node', node.url, '--json']);
  return `${run.out}${run.err}`;
}

describe('bad handler output names no internals', () => {
  for (const [face, call] of Object.entries({ esrp, emergence, websocket, sdk, cli })) {
    for (const name of BAD) {
      it(`${face}: ${name}`, async () => {
        const text = await call(name);
        expect(text).toMatch(/output schema|refusal|failed|error/i); // it did fail
        expect(text).not.toContain('$refusal');
        expect(text).not.toContain('\\u0024refusal');
      });
    }
  }

  it('says what is wrong with a malformed refusal in plain words', async () => {
    const text = await esrp('bad.out.refusal');
    expect(text).toContain('malformed refusal');
    const wrong = await esrp('bad.out.wrong');
    expect(wrong).toContain('missing required property \\"text\\"');
  });
});
