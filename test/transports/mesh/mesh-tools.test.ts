/**
 * `tool.discover` and `tool.invoke` over the mesh (issue 15 item 6; MESH-28), between real
 * in-process nodes with the mesh face on: a verb of a card a mesh peer announced is a remote
 * tool, named by its owner's libp2p PeerId, filtered and ranked like registered tools; a node
 * that took no gossip finds it through the DHT; invoking it runs the verb on the owner over
 * `/plexus/rpc/1.0.0`; a peer calling a node's `tool.*` is served that node's own tools only.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { ErrorData } from '../../../src/core/errors.js';
import type { JsonObject, JsonValue } from '../../../src/core/json.js';
import type { Node } from '../../../src/node/index.js';
import { remoteToolId } from '../../../src/primitives/tool/index.js';
import { TARGET_EXTENSION } from '../../../src/runtime/routing/index.js';
import { defineAgent } from '../../../src/runtime/index.js';
import { card, request } from '../../runtime/helpers.js';
import { eventually, until } from '../../support/until.js';
import { meshAddress, meshNode, meshStatus, runCleanups } from './rpc-helpers.js';

afterEach(runCleanups);

const VERB = 'search.corpus';
const QUERY_SCHEMA = {
  type: 'object',
  required: ['query'],
  properties: { query: { type: 'string' } },
} as const;
/** An agent serving {@link VERB}, its card naming a region (`_x_plexus_geo`). */
const searcher = (by: string, geo = 'us-east') =>
  defineAgent({
    card: card(
      'searcher',
      [{ verb: VERB, description: 'Full-text corpus search', input: QUERY_SCHEMA, output: true }],
      {
        extensions: { _x_plexus_geo: geo },
      },
    ),
    create: () => ({
      [VERB]: (input: JsonValue) => ({
        by,
        results: [`hit for ${JSON.stringify((input as JsonObject)['query'])}`],
      }),
    }),
  });

async function call(node: Node, verb: string, data: JsonValue, target?: string) {
  const { envelope } = await node.runtime.invoke(
    request(verb, data, 'tool', target === undefined ? {} : { extensions: { [TARGET_EXTENSION]: target } }),
    // a fresh key: the same query asked again is answered anew, not from the first answer (D5)
    { face: 'internal', idempotencyKey: randomUUID() },
  );
  return envelope;
}

async function ok(node: Node, verb: string, data: JsonValue): Promise<JsonObject> {
  const envelope = await call(node, verb, data);
  if (envelope.kind !== 'response') throw new Error(`${verb}: ${JSON.stringify(envelope.data)}`);
  return envelope.data as JsonObject;
}

const toolsOf = (answer: JsonObject) => answer['tools'] as JsonObject[];
const idOf = (tool: JsonObject | undefined): string => {
  const id = tool?.['id'];
  if (typeof id !== 'string') throw new Error(`no tool id in ${JSON.stringify(tool)}`);
  return id;
};

describe('tool.* over the mesh', () => {
  it('discovers a mesh peer’s verb as a tool of that peer and invokes it there', async () => {
    const far = await meshNode({}, { agents: [searcher('far')], primitives: ['tool'] });
    const near = await meshNode({ bootstrap: [await meshAddress(far)] }, { primitives: ['tool'] });
    const farPeer = (await meshStatus(far)).peerId;
    const nearPeer = (await meshStatus(near)).peerId;
    await until(() => near.runtime.agents.registry.find('searcher')?.card.origin === 'remote', {
      what: 'the searcher card learned by gossip',
      limitMs: 15_000,
    });

    // A tool registered on near is named by near's PeerId, not its did:key.
    const localRefused = await call(near, 'tool.register', {
      name: 'local-search',
      description: 'searches nothing in particular',
      schema: { input: { type: 'object' }, output: { type: 'object' } },
      capabilities: ['search'],
      verb: 'tool.nothing',
    });
    expect(localRefused.kind).toBe('error');
    await ok(near, 'tool.register', {
      name: 'local-search',
      description: 'searches nothing in particular',
      schema: { input: { type: 'object' }, output: { type: 'object' } },
      capabilities: ['search'],
      verb: 'local.search',
      reputation: 0.9,
    });

    const found = toolsOf(await ok(near, 'tool.discover', { query: 'search' }));
    expect(found.map((t) => [t['name'], t['peerId']])).toEqual([
      ['local-search', nearPeer], // reputation 0.9 ranks first
      [VERB, farPeer], // the default 0.5
    ]);
    const remote = found[1] ?? {};
    expect(remote).toMatchObject({
      id: remoteToolId(farPeer, 'searcher', VERB),
      description: 'Full-text corpus search',
      geo: 'us-east',
      capabilities: [VERB],
      agent: 'searcher',
      verb: VERB,
      reputation: 0.5,
      avgLatency: 0,
    });
    expect(remote['peerId'] as string).toMatch(/^12D3KooW/);

    // Filters: reputation, region, capability, text.
    expect(
      toolsOf(await ok(near, 'tool.discover', { query: '', minReputation: 0.6 })).map((t) => t['name']),
    ).toEqual(['local-search']);
    expect(toolsOf(await ok(near, 'tool.discover', { query: '', geo: 'us' })).map(idOf)).toEqual([
      idOf(remote),
    ]);
    expect(toolsOf(await ok(near, 'tool.discover', { query: '', geo: 'eu-west' }))).toEqual([]);
    expect(toolsOf(await ok(near, 'tool.discover', { query: 'corpus full-text' })).map(idOf)).toEqual([
      idOf(remote),
    ]);
    expect(
      toolsOf(await ok(near, 'tool.discover', { query: '', capabilities: [VERB] })).map((t) => t['id']),
    ).toEqual([remote['id']]);

    // Invoked: the verb runs on far (a call of near, admitted as a peer), the answer names far.
    const invoked = await ok(near, 'tool.invoke', { toolId: idOf(remote), params: { query: 'ssb' } });
    expect(invoked).toMatchObject({ result: { by: 'far', results: ['hit for "ssb"'] }, peerId: farPeer });
    expect(typeof invoked['duration']).toBe('number');
    const farJobs = (await far.runtime.jobs.list({})).jobs.filter((j) => j.verb === VERB);
    expect(farJobs).toHaveLength(1);
    const audits = (await far.log.read({ afterSeq: 0 })).filter(
      (e) => e.type === 'audit.invoked' && (e.data as { verb?: string; to?: string }).to !== undefined,
    );
    expect(audits.some((e) => (e.data as JsonObject)['principalKind'] === 'peer')).toBe(true);

    // The call counts for the remote tool's analytics and reputation on near.
    expect(await ok(near, 'tool.getAnalytics', { toolId: idOf(remote) })).toEqual({
      invocations: 1,
      avgLatency: invoked['duration'],
      successRate: 1,
    });
    const again = toolsOf(await ok(near, 'tool.discover', { query: '', capabilities: [VERB] }))[0];
    // the prior is far's claimed reputation (MESH-44): 0.5 before far's heartbeat reports the
    // call it just served, its own blend (rounded to 2 decimals) after
    const claimed = near.runtime.agents.peers.card(farPeer)?.reputation ?? 0.5;
    const blend = (prior: number) => Math.round(((prior * 10 + 1) / 11) * 10_000) / 10_000;
    expect([blend(0.5), blend(claimed)]).toContain(again?.['reputation']);

    // Bad input: params against the card's schema (refused here, nothing sent), an unknown id.
    const badParams = await call(near, 'tool.invoke', { toolId: idOf(remote), params: { query: 7 } });
    expect(badParams.kind).toBe('error');
    expect((badParams.data as unknown as ErrorData).code).toBe('INVALID_PARAMS');
    expect((await far.runtime.jobs.list({})).jobs.filter((j) => j.verb === VERB)).toHaveLength(1);
    const unknown = await call(near, 'tool.invoke', { toolId: 'tool-mesh-0000000000000000', params: {} });
    expect(unknown.kind).toBe('error');
    expect((unknown.data as unknown as ErrorData).code).toBe('NOT_FOUND');
    expect((unknown.data as unknown as ErrorData).message).toMatch(/no mesh peer announces/);

    // Once the owner is gone, the tool call fails as a peer call does.
    await far.stop({ drainMs: 0 });
    const gone = await call(near, 'tool.invoke', { toolId: idOf(remote), params: { query: 'x' } });
    expect(gone.kind).toBe('error');
    expect(['PEER_UNAVAILABLE', 'NOT_FOUND']).toContain((gone.data as unknown as ErrorData).code);
  }, 90_000); // real nodes on a shared machine: starting them is most of it

  it('finds the tool through the DHT when no gossip brought its card', async () => {
    const far = await meshNode({}, { agents: [searcher('far')], primitives: ['tool'] });
    const farPeer = (await meshStatus(far)).peerId;
    const near = await meshNode(
      { bootstrap: [await meshAddress(far)], followCapabilities: false },
      { primitives: ['tool'] },
    );
    expect(near.runtime.agents.registry.find('searcher')).toBeUndefined();
    // The DHT answers once far's provide reached near's routing table: ask until it does.
    const found = await eventually(
      'the searcher found through the DHT',
      async () => {
        const tools = toolsOf(await ok(near, 'tool.discover', { query: '', capabilities: [VERB] }));
        return tools.length > 0 ? tools : undefined;
      },
      { limitMs: 20_000, everyMs: 200 },
    );
    expect(found.map((t) => [t['name'], t['peerId']])).toEqual([[VERB, farPeer]]);
    const invoked = await ok(near, 'tool.invoke', {
      toolId: idOf(found[0]),
      params: { query: 'q' },
    });
    expect(invoked).toMatchObject({ result: { by: 'far' }, peerId: farPeer });
  }, 90_000); // real nodes on a shared machine: starting them is most of it

  it('serves a peer only the node’s own tools', async () => {
    const far = await meshNode({}, { agents: [searcher('far')], primitives: ['tool'] });
    const boot = await meshAddress(far);
    const middle = await meshNode({ bootstrap: [boot] }, { primitives: ['tool'] });
    const caller = await meshNode({ bootstrap: [boot] }, { primitives: ['tool'] });
    const farPeer = (await meshStatus(far)).peerId;
    const middlePeer = (await meshStatus(middle)).peerId;
    await until(() => middle.runtime.agents.registry.find('searcher')?.card.origin === 'remote', {
      what: 'middle learned the searcher',
      limitMs: 15_000,
    });
    await ok(middle, 'tool.register', {
      name: 'middle-echo',
      description: 'echoes',
      schema: { input: { type: 'object' }, output: {} },
      capabilities: ['echo'],
      verb: 'middle.echo',
    });
    const remoteId = remoteToolId(farPeer, 'searcher', VERB);
    const viaMiddle = `p2p://${middlePeer}/tool`;

    // Asked by a peer, middle lists its own tool, not far's.
    const listed = await call(caller, 'tool.discover', { query: '' }, viaMiddle);
    expect(listed.kind).toBe('response');
    expect(toolsOf(listed.data as JsonObject).map((t) => [t['name'], t['peerId']])).toEqual([
      ['middle-echo', middlePeer],
    ]);
    // …and refuses to relay a call of far's tool.
    const relayed = await call(
      caller,
      'tool.invoke',
      { toolId: remoteId, params: { query: 'x' } },
      viaMiddle,
    );
    expect(relayed.kind).toBe('error');
    expect((relayed.data as unknown as ErrorData).code).toBe('NOT_FOUND');
    expect((relayed.data as unknown as ErrorData).message).toMatch(/only this node's own tools/);
    expect((await far.runtime.jobs.list({})).jobs.filter((j) => j.verb === VERB)).toHaveLength(0);
    // Asked directly (not as a peer), middle does run it on far.
    const direct = await ok(middle, 'tool.invoke', { toolId: remoteId, params: { query: 'y' } });
    expect(direct).toMatchObject({ peerId: farPeer, result: { by: 'far' } });
  }, 90_000); // real nodes on a shared machine: starting them is most of it
});
