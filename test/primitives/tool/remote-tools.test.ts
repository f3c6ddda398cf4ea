/**
 * The mesh half of the tool primitive, below the mesh (MESH-28): which registry cards are remote
 * tools (only those a mesh peer announced), their stable ids and fields, and the projection that
 * folds this node's calls of them — rebuilt from the log equal to its live fold, and through its
 * JSON form unchanged.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../src/core/json.js';
import {
  REMOTE_TOOL_PREFIX,
  registryRemoteTools,
  remoteToolId,
  remoteToolStatsProjection,
} from '../../../src/primitives/tool/index.js';
import { createRuntime, type Runtime } from '../../../src/runtime/index.js';
import { REMOTE_MESH_PEER_EXTENSION } from '../../../src/runtime/routing/index.js';
import { memoryEventLog } from '../../../src/store/index.js';
import { projectionText, rebuildProjection } from '../../../src/store/projection.js';
import { agent, cap, card } from '../../runtime/helpers.js';

const PEER = '12D3KooWRx434ACwmJzGa1v4pTpn8pT1jm6xvzK5vYEqgK2x6Kpo';
let runtime: Runtime | undefined;
afterEach(async () => {
  await runtime?.stop({ drainMs: 0 });
  runtime = undefined;
});

describe('remote tools', () => {
  it('are the verbs of cards a mesh peer announced, nothing else', async () => {
    const log = memoryEventLog();
    await log.start();
    runtime = createRuntime({ log, agents: [agent('local-search', { 'search.local': () => null })] });
    await runtime.start();
    const { registry } = runtime.agents;
    await registry.upsert(
      card(
        'mesh-search',
        [{ ...cap('search.web@2', { type: 'object' }), description: 'Web search' }, cap('search.news')],
        {
          extensions: { [REMOTE_MESH_PEER_EXTENSION]: PEER, _x_plexus_geo: 'eu-west' },
          description: 'Searches',
        },
      ),
      { origin: 'remote' },
    );
    // a remote card of an HTTP peer (no mesh owner) is not a mesh tool
    await registry.upsert(card('http-search', [cap('search.http')]), { origin: 'remote' });

    const source = registryRemoteTools(() => runtime as Runtime);
    const tools = source.tools();
    expect(tools).toEqual([
      {
        toolId: remoteToolId(PEER, 'mesh-search', 'search.web'),
        name: 'search.web',
        description: 'Web search',
        capabilities: ['search.web'],
        verb: 'search.web',
        agent: 'mesh-search',
        peerId: PEER,
        geo: 'eu-west',
        schema: { input: { type: 'object' }, output: true },
      },
      expect.objectContaining({ name: 'search.news', description: 'Searches', peerId: PEER }),
    ]);
    expect(tools[0]?.toolId).toMatch(new RegExp(`^${REMOTE_TOOL_PREFIX}[0-9a-f]{16}$`));
    expect(remoteToolId(PEER, 'mesh-search', 'search.web')).toBe(tools[0]?.toolId); // stable
    expect(remoteToolId(PEER, 'other', 'search.web')).not.toBe(tools[0]?.toolId);
    // Without a discovery plugged in (no mesh), a lookup returns at once and adds nothing.
    await source.discover(['search.unknown', 'not a verb'], AbortSignal.timeout(1000));
    expect(source.tools()).toHaveLength(2);
  });

  it('fold this node’s calls of them; the rebuild and the JSON form equal the live fold', async () => {
    const log = memoryEventLog();
    await log.start();
    const remote = remoteToolId(PEER, 'mesh-search', 'search.web');
    const invoked = (toolId: string, ok: boolean, duration: number, n: number) =>
      log.append({
        type: 'tool.invoked',
        data: { toolId, jobId: `job-${n}`, ok, duration, at: `2026-11-27T12:00:0${n}.000Z` },
      });
    await invoked(remote, true, 100, 1);
    await invoked('tool-0123456789ab', true, 5, 2); // a registered tool: not folded here
    await invoked(remote, false, 300, 3);
    const { state } = await rebuildProjection(log, remoteToolStatsProjection);
    expect([...state]).toEqual([
      [
        remote,
        { invocations: 2, successes: 1, totalDuration: 400, lastInvokedAt: '2026-11-27T12:00:03.000Z' },
      ],
    ]);
    let live = remoteToolStatsProjection.initial();
    for (const event of await log.read({ afterSeq: 0 })) live = remoteToolStatsProjection.apply(live, event);
    const text = projectionText(remoteToolStatsProjection, live);
    expect(projectionText(remoteToolStatsProjection, state)).toBe(text);
    const restored = remoteToolStatsProjection.fromJson?.(JSON.parse(text) as JsonValue);
    if (restored === undefined) throw new Error('the projection has no fromJson');
    expect(projectionText(remoteToolStatsProjection, restored)).toBe(text);
    await log.stop();
  });
});
