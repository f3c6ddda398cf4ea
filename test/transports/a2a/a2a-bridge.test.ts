/**
 * The A2A client bridge (issue 14 item 4): A2A agents as Plexus agents. Against a stock A2A SDK
 * server written here (`DefaultRequestHandler` with an `InMemoryTaskStore` behind the SDK's
 * `JsonRpcTransportHandler` on node:http): skills appear as verbs, calls and streams round-trip,
 * cancelling the job cancels the remote task, a card with a bad signature is refused. And
 * Plexus to Plexus: one node bridges another's signed A2A face. At run time (A2A-19…21):
 * `bridge.announceA2AAgent` over the WebSocket JSON-RPC face (privileged, SSRF-checked,
 * persisted across a restart), `a2a+http://` targets, and the card fetched again on max-age
 * expiry with `If-None-Match` (changed skills followed, a vanished agent's verbs unavailable).
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../../src/security/index.js';
import { TARGET_EXTENSION } from '../../../src/runtime/index.js';
import { wsJsonRpcClient } from '../../../src/transports/ws-jsonrpc/client.js';
import type { Envelope } from '../../../src/core/envelope.js';
import { PlexusError } from '../../../src/core/errors.js';
import type { JsonObject } from '../../../src/core/json.js';
import { createNode, type Node } from '../../../src/node/node.js';
import { defaultFaces } from '../../../src/node/faces.js';
import { a2aBridgeAgent } from '../../../src/transports/a2a-bridge/a2a-agent.js';
import { a2aBridgeFace } from '../../../src/transports/a2a-bridge/a2a-bridge-face.js';
import {
  A2A_CARD_PATH,
  cardJson,
  echoExecutor,
  sdkAgentCard,
  startA2aSdkServer,
} from '../../support/a2a-sdk-server.js';
import { until } from '../../support/until.js';

let cancelled: string[] = [];
const waiting = new Map<string, () => void>();

/** Skill `echo` answers the text in an artifact; skill `wait` works until it is cancelled. */
const executor = echoExecutor({
  hold: (ctx) =>
    (ctx.userMessage.metadata as { skill?: string } | undefined)?.skill === 'wait'
      ? new Promise<void>((resolve) => {
          waiting.set(ctx.taskId, resolve);
        })
      : undefined,
  cancelled: (taskId) => {
    cancelled.push(taskId);
    waiting.get(taskId)?.();
  },
});

/** What the SDK server's card says and how it is served; tests change it. */
interface CardState {
  skills: string[];
  cacheControl?: string;
  /** The card answers 404 (the agent is gone). */
  gone?: boolean;
  /** The interface URL the card names, instead of the server's own. */
  interfaceUrl?: string;
  /** Card requests seen, and those answered 304. */
  fetches: number;
  notModified: number;
}

function cardOf(
  port: number,
  extra: Record<string, unknown> = {},
  state?: CardState,
): Record<string, unknown> {
  const card = sdkAgentCard({
    port,
    skills: state?.skills ?? ['echo', 'wait'],
    streaming: true,
    ...(state?.interfaceUrl === undefined ? {} : { interfaceUrl: state.interfaceUrl }),
  });
  return { ...cardJson(card), ...extra };
}

/** The SDK server on loopback; `extra` is merged into its card (a forged signature, say). */
async function sdkServer(
  extra: Record<string, unknown> = {},
  state?: CardState,
): Promise<{ url: string; server: Server }> {
  const sdk = await startA2aSdkServer({
    executor,
    card: (port) => sdkAgentCard({ port, skills: ['echo', 'wait'], streaming: true }),
    // the card with an ETag (304 to If-None-Match), a Cache-Control, or gone
    intercept: (req, res, _body, port) => {
      if (req.method !== 'GET' || req.url !== A2A_CARD_PATH) return false;
      if (state !== undefined) state.fetches++;
      if (state?.gone === true) {
        res.writeHead(404).end();
        return true;
      }
      const body = JSON.stringify(cardOf(port, extra, state));
      const etag = `"${createHash('sha256').update(body).digest('hex')}"`;
      const headers = {
        'content-type': 'application/json',
        etag,
        ...(state?.cacheControl === undefined ? {} : { 'cache-control': state.cacheControl }),
      };
      if (state !== undefined && req.headers['if-none-match'] === etag) {
        state.notModified++;
        res.writeHead(304, headers).end();
        return true;
      }
      res.writeHead(200, headers).end(body);
      return true;
    },
  });
  return { url: sdk.url, server: sdk.server };
}

function request(verb: string, data: Envelope['data'], target?: string): Envelope {
  return {
    id: randomUUID(),
    kind: 'request',
    from: 'test',
    to: `capability:${verb}`,
    verb,
    data,
    ...(target === undefined ? {} : { extensions: { [TARGET_EXTENSION]: target } }),
  };
}

describe('A2A agents as Plexus agents', () => {
  const nodes: Node[] = [];
  const servers: Server[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    for (const node of nodes.splice(0)) await node.stop({ drainMs: 0 });
    for (const resolve of waiting.values()) resolve();
    waiting.clear();
    cancelled = [];
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  async function bridgeNode(url: string, name = 'remote'): Promise<Node> {
    const dataDir = await mkdtemp(join(tmpdir(), 'plexus-a2a-bridge-'));
    dirs.push(dataDir);
    const node = createNode({
      primitives: false,
      dataDir,
      store: 'memory',
      host: '127.0.0.1',
      port: 0,
      dev: true,
      faces: [a2aBridgeFace({ agents: [{ name, url }] })],
    });
    nodes.push(node);
    await node.start();
    await until(() => node.runtime.agents.registry.find(name) !== undefined, {
      what: `agent ${name} hosted`,
    });
    return node;
  }

  it('hosts the skills as verbs; a call round-trips, streaming its status as progress', async () => {
    const sdk = await sdkServer();
    servers.push(sdk.server);
    const node = await bridgeNode(sdk.url);
    const card = node.runtime.agents.registry.get('remote');
    expect(card.capabilities.map((c) => c.verb)).toEqual(['a2a.remote.echo', 'a2a.remote.wait']);
    const { envelope } = await node.runtime.invoke(request('a2a.remote.echo', 'hello there'), {
      face: 'internal',
    });
    expect(envelope.kind).toBe('response');
    expect(envelope.data).toBe('hello there');
    const { job } = await node.runtime.submit(request('a2a.remote.echo', { n: 7 }), { face: 'internal' });
    await node.runtime.jobs.wait(job.id);
    const events = await node.runtime.jobs.events(job.id);
    expect(events.some((e) => e.type === 'job.progress')).toBe(true);
    expect((await node.runtime.jobs.get(job.id)).outputs).toEqual({ n: 7 });
  });

  it('cancels the remote task when the job is cancelled', async () => {
    const sdk = await sdkServer();
    servers.push(sdk.server);
    const node = await bridgeNode(sdk.url);
    const { job } = await node.runtime.submit(request('a2a.remote.wait', 'x'), { face: 'internal' });
    await until(() => waiting.size > 0, { what: 'the remote task running' });
    await node.runtime.jobs.cancel(job.id);
    await until(() => cancelled.length > 0, { what: 'the remote task cancelled' });
    expect((await node.runtime.jobs.get(job.id)).state).toBe('CANCELED');
  });

  it('refuses a card whose signature does not verify unless the entry allows it', async () => {
    const forged = {
      signatures: [
        {
          protected: Buffer.from(
            JSON.stringify({ alg: 'EdDSA', kid: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK' }),
          ).toString('base64url'),
          signature: 'AAAA',
        },
      ],
    };
    const sdk = await sdkServer(forged);
    servers.push(sdk.server);
    await expect(a2aBridgeAgent({ name: 'forged', url: sdk.url })).rejects.toThrow(PlexusError);
    await expect(a2aBridgeAgent({ name: 'forged', url: sdk.url })).rejects.toThrow(
      /does not verify; set unsigned: allow/,
    );
    const allowed = await a2aBridgeAgent({ name: 'forged', url: sdk.url, unsigned: 'allow' });
    expect(allowed.card.capabilities).toHaveLength(2);
  });

  it('bridges another Plexus node through its signed A2A face', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'plexus-a2a-bridged-'));
    dirs.push(dataDir);
    const other = createNode({
      dataDir,
      store: 'memory',
      host: '127.0.0.1',
      port: 0,
      dev: true,
      demo: true,
      faces: defaultFaces({ dev: true }),
    });
    nodes.push(other);
    await other.start();
    const node = await bridgeNode(other.url, 'other');
    const verbs = node.runtime.agents.registry.get('other').capabilities.map((c) => c.verb);
    expect(verbs).toContain('a2a.other.math_math_evaluate');
    const { envelope } = await node.runtime.invoke(
      request('a2a.other.math_math_evaluate', { expression: '2 * (3 + 4) ^ 2' }),
      { face: 'internal' },
    );
    expect(envelope.kind, JSON.stringify(envelope.data)).toBe('response');
    expect(envelope.data).toMatchObject({ value: 98 });
  });

  it('bridge.announceA2AAgent: privileged only, SSRF-checked, routed by a2a+http://, kept across a restart', async () => {
    const sdk = await sdkServer();
    servers.push(sdk.server);
    const admin = generateApiKey();
    const user = generateApiKey();
    const dataDir = await mkdtemp(join(tmpdir(), 'plexus-a2a-announce-'));
    dirs.push(dataDir);
    const init = {
      primitives: false,
      dataDir,
      store: 'sqlite' as const,
      host: '127.0.0.1',
      port: 0,
      dev: true,
      apiKeys: [
        { hash: admin.hash, subject: 'ops', scopes: ['bridge:admin'] },
        { hash: user.hash, subject: 'someone' },
      ],
      a2a: { announce: { enabled: true, allowHosts: ['agents.example.com'] } },
    };
    const first = createNode(init);
    nodes.push(first);
    await first.start();
    const rpc = `${first.url.replace(/^http/, 'ws')}/rpc`;
    const asUser = await wsJsonRpcClient({ url: rpc, token: user.key });
    await expect(asUser.call('bridge.announceA2AAgent', { url: sdk.url })).rejects.toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringMatching(/bridge:admin/) as unknown,
    });
    await asUser.close();
    const asAdmin = await wsJsonRpcClient({ url: rpc, token: admin.key });
    const refused = async (params: JsonObject, code: string, message: RegExp) => {
      await expect(asAdmin.call('bridge.announceA2AAgent', params)).rejects.toMatchObject({
        code,
        message: expect.stringMatching(message) as unknown,
      });
    };
    await refused({ url: 'not a url' }, 'INVALID_PARAMS', /not a URL/);
    await refused({ url: 'file:///etc/passwd' }, 'INVALID_PARAMS', /http or https/);
    await refused({ url: 'http://169.254.169.254/latest' }, 'FORBIDDEN', /a2a\.announce\.allowHosts/);
    await refused({ url: 'http://agents.example.com' }, 'FORBIDDEN', /must be https/);
    await refused({ url: `http://user:pw@127.0.0.1:1` }, 'INVALID_PARAMS', /credentials/);
    await refused({ url: sdk.url, shell: true }, 'INVALID_PARAMS', /shell is not a field/);
    await refused({ agentCard: { name: 'x' } }, 'INVALID_PARAMS', /instead of agentCard/);
    await refused({ url: sdk.url, name: 'a2a-bridge' }, 'CONFLICT', /no A2A bridge/);
    // a card at an allowed URL whose interface sends the calls elsewhere
    const redirecting = await sdkServer(
      {},
      {
        skills: ['echo'],
        interfaceUrl: 'http://10.0.0.1/rpc',
        fetches: 0,
        notModified: 0,
      },
    );
    servers.push(redirecting.server);
    await refused(
      { url: redirecting.url, name: 'sneaky' },
      'FORBIDDEN',
      /interface url.*10\.0\.0\.1.*not allowed/,
    );
    const dead = createServer();
    await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
    const deadPort = (dead.address() as { port: number }).port;
    await new Promise((r) => dead.close(r));
    await refused({ url: `http://127.0.0.1:${deadPort}` }, 'UNAVAILABLE', /could not be fetched/);

    const answer = await asAdmin.call('bridge.announceA2AAgent', { url: `${sdk.url}/` });
    expect(answer).toEqual({
      name: 'sdk_agent',
      url: sdk.url,
      verbs: ['a2a.sdk_agent.echo', 'a2a.sdk_agent.wait'],
    });
    await refused({ url: sdk.url, name: 'twin' }, 'CONFLICT', /already bridged as sdk_agent/);
    expect(await asAdmin.call('a2a.sdk_agent.echo', { text: 'over the wire' })).toBe('over the wire');
    await asAdmin.close();
    for (const name of ['sneaky', 'twin']) expect(first.runtime.agents.registry.find(name)).toBeUndefined();

    // a2a+http:// targets: the bridged agent at that URL; another URL is not bridged
    const viaTarget = await first.runtime.invoke(
      request('a2a.sdk_agent.echo', 'by target', `a2a+http://127.0.0.1:${new URL(sdk.url).port}/`),
      { face: 'internal' },
    );
    expect(viaTarget.envelope.data).toBe('by target');
    const elsewhere = await first.runtime.invoke(
      request('a2a.sdk_agent.echo', 'x', 'a2a+https://agents.example.com/weather'),
      { face: 'internal' },
    );
    expect(elsewhere.envelope.kind).toBe('error');
    expect(elsewhere.envelope.data).toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringMatching(/does not bridge.*bridge\.announceA2AAgent/) as unknown,
    });
    const wrongVerb = await first.runtime.invoke(request('a2a.other.echo', 'x', `a2a+${sdk.url}`), {
      face: 'internal',
    });
    expect(wrongVerb.envelope.data).toMatchObject({ code: 'UNKNOWN_VERB' });
    const malformed = await first.runtime.invoke(request('a2a.sdk_agent.echo', 'x', 'a2a+https://h/?q=1'), {
      face: 'internal',
    });
    expect(malformed.envelope.data).toMatchObject({ code: 'INVALID_PARAMS' });
    await first.stop({ drainMs: 0 });
    nodes.splice(nodes.indexOf(first), 1);

    const second = createNode(init);
    nodes.push(second);
    await second.start();
    await until(() => second.runtime.agents.registry.find('sdk_agent') !== undefined, {
      what: 'the announced agent bridged again',
    });
    const again = await second.runtime.invoke(
      request('a2a.sdk_agent.echo', 'after restart', `a2a+${sdk.url}`),
      {
        face: 'internal',
      },
    );
    expect(again.envelope.data).toBe('after restart');
    expect(second.runtime.agents.registry.find('sneaky')).toBeUndefined();
  });

  it('fetches the card again when its max-age runs out: revalidates, follows skills, marks a vanished agent', async () => {
    const state: CardState = { skills: ['echo'], cacheControl: 'max-age=0', fetches: 0, notModified: 0 };
    const sdk = await sdkServer({}, state);
    servers.push(sdk.server);
    const dataDir = await mkdtemp(join(tmpdir(), 'plexus-a2a-refetch-'));
    dirs.push(dataDir);
    const node = createNode({
      primitives: false,
      dataDir,
      store: 'memory',
      host: '127.0.0.1',
      port: 0,
      dev: true,
      faces: [a2aBridgeFace({ agents: [{ name: 'live', url: sdk.url }], minRefreshMs: 20, retryMs: 20 })],
    });
    nodes.push(node);
    await node.start();
    await until(() => node.runtime.agents.registry.find('live') !== undefined, { what: 'agent live hosted' });
    await until(() => state.notModified > 0, { what: 'a revalidation answered 304' });
    const verbs = () => node.runtime.agents.registry.get('live').capabilities.map((c) => c.verb);
    expect(verbs()).toEqual(['a2a.live.echo']);

    state.skills = ['echo', 'shout'];
    await until(() => verbs().includes('a2a.live.shout'), { what: 'the new skill followed' });
    state.skills = ['shout'];
    await until(() => !verbs().includes('a2a.live.echo'), { what: 'the removed skill dropped' });

    state.gone = true;
    const seen = state.fetches;
    await until(() => state.fetches > seen + 1, { what: 'the card fetched while gone' });
    const down = await node.runtime.invoke(request('a2a.live.shout', 'hi'), { face: 'internal' });
    expect(down.envelope.kind).toBe('error');
    expect(down.envelope.data).toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringMatching(
        /A2A agent live .* is unavailable .*could not be fetched again.*HTTP 404/,
      ) as unknown,
    });

    state.gone = false;
    await until(
      async () =>
        (await node.runtime.invoke(request('a2a.live.shout', 'back'), { face: 'internal' })).envelope.data ===
        'back',
      { what: 'the agent answering again once its card is back' },
    );
  });
  it('bridge.removeA2AAgent: privileged only, unknown names refused, recorded, stays removed after a restart', async () => {
    const sdk = await sdkServer();
    servers.push(sdk.server);
    const other = await sdkServer();
    servers.push(other.server);
    const admin = generateApiKey();
    const user = generateApiKey();
    const dataDir = await mkdtemp(join(tmpdir(), 'plexus-a2a-remove-'));
    dirs.push(dataDir);
    const init = {
      primitives: false,
      dataDir,
      store: 'sqlite' as const,
      host: '127.0.0.1',
      port: 0,
      dev: true,
      apiKeys: [
        { hash: admin.hash, subject: 'ops', scopes: ['bridge:admin'] },
        { hash: user.hash, subject: 'someone' },
      ],
      a2a: { announce: { enabled: true }, agents: [{ name: 'configured', url: other.url }] },
    };
    const first = createNode(init);
    nodes.push(first);
    await first.start();
    await until(() => first.runtime.agents.registry.find('configured') !== undefined, {
      what: 'the configured agent hosted',
    });
    const rpc = `${first.url.replace(/^http/, 'ws')}/rpc`;
    const asAdmin = await wsJsonRpcClient({ url: rpc, token: admin.key });
    await asAdmin.call('bridge.announceA2AAgent', { url: sdk.url, name: 'gone_soon' });
    await asAdmin.call('bridge.announceA2AAgent', {
      url: other.url.replace('127.0.0.1', 'localhost'),
      name: 'stays',
    });
    expect(await asAdmin.call('a2a.gone_soon.echo', { text: 'before' })).toBe('before');

    const asUser = await wsJsonRpcClient({ url: rpc, token: user.key });
    await expect(asUser.call('bridge.removeA2AAgent', { name: 'gone_soon' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringMatching(/bridge:admin/) as unknown,
    });
    await asUser.close();
    const refused = async (params: JsonObject, code: string, message: RegExp) => {
      await expect(asAdmin.call('bridge.removeA2AAgent', params)).rejects.toMatchObject({
        code,
        message: expect.stringMatching(message) as unknown,
      });
    };
    await refused(
      { name: 'nobody' },
      'NOT_FOUND',
      /no A2A agent named "nobody".*announced: gone_soon, stays/,
    );
    await refused({ name: 'configured' }, 'CONFLICT', /plexus\.yaml/);
    await refused({}, 'INVALID_PARAMS', /name/);
    await refused({ name: 'gone_soon', force: true }, 'INVALID_PARAMS', /force/);
    await refused({ name: '../etc' }, 'INVALID_PARAMS', /name/);
    expect(first.runtime.agents.registry.find('gone_soon')).toBeDefined();

    const removed = await asAdmin.call('bridge.removeA2AAgent', { name: 'gone_soon' });
    expect(removed).toEqual({
      name: 'gone_soon',
      url: sdk.url,
      verbs: ['a2a.gone_soon.echo', 'a2a.gone_soon.wait'],
    });
    expect(first.runtime.agents.registry.find('gone_soon')).toBeUndefined();
    await expect(asAdmin.call('a2a.gone_soon.echo', { text: 'after' })).rejects.toMatchObject({
      code: 'UNKNOWN_VERB',
    });
    await refused({ name: 'gone_soon' }, 'NOT_FOUND', /announced: stays/);
    const events = await first.log.read({ type: 'a2a.bridge.agent_removed' });
    expect(events.map((e) => e.data)).toEqual([
      { name: 'gone_soon', removedBy: expect.any(String) as unknown },
    ]);
    await asAdmin.close();
    await first.stop({ drainMs: 0 });
    nodes.splice(nodes.indexOf(first), 1);

    const second = createNode(init);
    nodes.push(second);
    await second.start();
    await until(() => second.runtime.agents.registry.find('stays') !== undefined, {
      what: 'the other announced agent bridged again',
    });
    expect(second.runtime.agents.registry.find('gone_soon')).toBeUndefined();
    // removed, then announced again: it is back, and after a restart too
    const rpc2 = `${second.url.replace(/^http/, 'ws')}/rpc`;
    const again = await wsJsonRpcClient({ url: rpc2, token: admin.key });
    await again.call('bridge.announceA2AAgent', { url: sdk.url, name: 'gone_soon' });
    expect(await again.call('a2a.gone_soon.echo', { text: 'back' })).toBe('back');
    await again.close();
    await second.stop({ drainMs: 0 });
    nodes.splice(nodes.indexOf(second), 1);
    const third = createNode(init);
    nodes.push(third);
    await third.start();
    await until(() => third.runtime.agents.registry.find('gone_soon') !== undefined, {
      what: 'the agent announced again bridged after a restart',
    });
  });
});
