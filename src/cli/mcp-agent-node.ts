/**
 * The in-process node of `plexus mcp --agent FILE…`: the agent modules loaded as `plexus
 * start --agent` loads them, hosted by a node on 127.0.0.1 port 0 with an in-memory event
 * log, a temporary data directory, no demo agents and no Hyperspace primitives. Its faces
 * demand a credential; the only one is an API key made here and kept in memory, so another
 * local process cannot call these agents through the port.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../core/logger.js';
import { createNode, type Node } from '../node/index.js';
import { generateApiKey } from '../security/index.js';
import { hostedAgentDefinitions, loadAgentModules, type LoadedAgent } from './agent-modules.js';
import type { NodeTarget } from './node-client.js';

/** A started in-process node and how to reach it. */
export interface AgentNode {
  /** Its URL and the API key its faces accept. */
  readonly target: Required<NodeTarget>;
  readonly agents: readonly LoadedAgent[];
  /** Stops the node (in-flight jobs get `drainMs`) and removes its data directory. */
  stop(drainMs?: number): Promise<void>;
}

/**
 * Loads the agent modules (absolute paths) and starts a node hosting them.
 *
 * @throws PlexusError naming the file for an agent module that cannot be loaded, or when the
 *   node cannot start.
 */
export async function startAgentNode(files: readonly string[], logger: Logger): Promise<AgentNode> {
  const loaded = await loadAgentModules(files);
  const dataDir = await mkdtemp(join(tmpdir(), 'plexus-mcp-'));
  const key = generateApiKey();
  const hosted = hostedAgentDefinitions(
    loaded.map((a) => a.spec),
    () => node,
  );
  const node: Node = createNode({
    dataDir,
    store: 'memory',
    host: '127.0.0.1',
    port: 0,
    dev: false,
    demo: false,
    primitives: false,
    apiKeys: [{ hash: key.hash, subject: 'plexus-mcp' }],
    agents: hosted,
    logger,
  });
  try {
    await node.start();
  } catch (error) {
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
  return {
    target: { url: node.url, token: key.key },
    agents: loaded,
    stop: async (drainMs = 0) => {
      try {
        await node.stop({ drainMs });
      } finally {
        await rm(dataDir, { recursive: true, force: true });
      }
    },
  };
}
