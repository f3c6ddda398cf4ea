/**
 * The MCP client bridge as a node plug-in (issue 13 item 8; docs/decisions/mcp.md MCP-30…37):
 * once the node listens, each `mcp.servers` entry — and, with `register`, each server added by
 * `bridge.registerMCPServer` and kept in the log — is connected with the stock SDK client and
 * hosted as an agent (`runtime.agents.add`), so its tools are verbs every face can call, its
 * resources and prompts are served by this node's `/mcp`, and `mcp://<name>/<tool>` reaches it.
 * The server's `list_changed` notifications re-list it and replace the agent's card (a removed
 * tool disappears); a stdio server whose process exits is restarted by the agent's supervisor.
 * An entry that cannot be reached is logged and tried again every `retryMs`. A server registered
 * at run time is removed by `bridge.unregisterMCPServer` (its link closed, its agent removed, the
 * removal recorded); the `env` and `headers` values of registered entries are `${NAME}`
 * references to the node's environment, so no secret is in the log (MCP-54). It serves no routes.
 */
import { PlexusError } from '../../core/errors.js';
import { MCP_BRIDGE_EXTENSION } from '../../runtime/index.js';
import type { Face, FaceFactory } from '../face.js';
import type { OutboundTrace } from '../outbound-trace.js';
import { silentLogger } from '../face-components.js';
import { mcpBridgeAgent, type InstanceOwner } from './mcp-agent.js';
import { createMcpLink, type McpLink, type McpListing } from './mcp-link.js';
import { loadRegistrations, recordRegistration, recordRemoval } from '../bridge/bridge-registrations.js';
import { MCP_REGISTRATIONS } from './mcp-registrations.js';
import { describeEntry, type McpServerEntry } from './mcp-server-entry.js';
import { registerAgent } from './register-agent.js';

/** Options of {@link mcpBridgeFace}. */
export interface McpBridgeInit {
  /** The servers of `plexus.yaml`'s `mcp.servers`. */
  readonly servers: readonly McpServerEntry[];
  /** Host `bridge.registerMCPServer` and bridge the servers it registered before. @default false */
  readonly register?: boolean;
  /** How long after a failed connection it is tried again, ms. @default 30000 */
  readonly retryMs?: number;
}

interface Bridged {
  readonly link: McpLink;
  readonly owner: InstanceOwner;
  /** The listing the agent was last defined with (JSON), to skip refreshes that change nothing. */
  listed: string;
  /** Hosting and refreshes of this server, one after another. */
  chain: Promise<unknown>;
}

/**
 * The bridge's factory.
 * @example createNode({ faces: [...defaultFaces(init), mcpBridgeFace({ servers: [{ name: 'fs', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'] }] })] });
 */
export function mcpBridgeFace(init: McpBridgeInit): FaceFactory {
  return (components): Face => {
    const { runtime, log } = components;
    const logger = components.logger ?? silentLogger;
    const stopping = new AbortController();
    const timers = new Set<NodeJS.Timeout>();
    const bridged = new Map<string, Bridged>();
    const configured = new Set(init.servers.map((s) => s.name));
    /** The servers registered at run time (and not removed), by name: the entry hosted. */
    const registered = new Map<string, McpServerEntry>();
    const stopped = (): boolean => stopping.signal.aborted;

    const define = (b: Bridged, listing: McpListing) =>
      mcpBridgeAgent(b.link, listing, b.owner, () => {
        refresh(b);
      });

    const adopt = async (b: Bridged, listing: McpListing): Promise<readonly string[]> => {
      const definition = define(b, listing);
      b.listed = JSON.stringify(listing);
      await runtime.agents.add(definition);
      return definition.card.capabilities.map((c) => c.verb);
    };

    /** Re-lists the server and replaces the agent when anything changed. */
    function refresh(b: Bridged): void {
      b.chain = b.chain.then(async () => {
        if (stopped() || bridged.get(b.link.entry.name) !== b) return;
        try {
          const listing = await b.link.listing();
          if (JSON.stringify(listing) === b.listed || stopped()) return;
          const verbs = await adopt(b, listing);
          logger.info({ agent: b.link.entry.name, verbs: verbs.length }, 'mcp bridge: tool list followed');
        } catch (error) {
          logger.warn({ agent: b.link.entry.name, error: String(error) }, 'mcp bridge: re-listing failed');
        }
      });
    }

    /** Connects `entry`'s server and hosts its agent (replacing an earlier bridge of the name). */
    const bridge = async (entry: McpServerEntry, trace?: OutboundTrace): Promise<readonly string[]> => {
      const existing = runtime.agents.registry.find(entry.name);
      if (existing !== undefined && existing.card.extensions?.[MCP_BRIDGE_EXTENSION] === undefined) {
        throw new PlexusError(
          'CONFLICT',
          `an agent with id ${JSON.stringify(entry.name)} already runs on this node and is no MCP bridge; choose another name`,
          { details: { pointer: '/name' } },
        );
      }
      const earlier = bridged.get(entry.name);
      bridged.delete(entry.name);
      await earlier?.link.close();
      const owner: InstanceOwner = {};
      const b: Bridged = {
        owner,
        listed: '',
        chain: Promise.resolve(),
        link: createMcpLink(entry, {
          listChanged: () => {
            refresh(b);
          },
          died: (reason) => {
            if (stopped()) return;
            logger.warn({ agent: entry.name, error: reason.message }, 'mcp bridge: server died');
            owner.crashed?.(reason);
          },
          ...(components.tracing === undefined ? {} : { tracing: components.tracing }),
        }),
      };
      const hosted = (async () => {
        try {
          // OBS-68: a registering call's connect and lists are CLIENT spans of that call
          const verbs = await adopt(b, await b.link.listing(trace));
          bridged.set(entry.name, b);
          return verbs;
        } catch (error) {
          await b.link.close();
          throw error;
        }
      })();
      b.chain = hosted.catch(() => undefined);
      return hosted;
    };

    /** True while `entry` is still one to host (not removed nor replaced by a later registration). */
    const wanted = (entry: McpServerEntry): boolean =>
      configured.has(entry.name) || registered.get(entry.name) === entry;

    const host = async (entry: McpServerEntry): Promise<void> => {
      if (stopped() || !wanted(entry)) return;
      try {
        const verbs = await bridge(entry);
        logger.info(
          { agent: entry.name, server: describeEntry(entry), verbs: verbs.length },
          'mcp bridge: agent hosted',
        );
      } catch (error) {
        if (stopped() || !wanted(entry)) return;
        logger.error(
          { agent: entry.name, server: describeEntry(entry), error: String(error) },
          'mcp bridge: agent not hosted; retrying',
        );
        const timer = setTimeout(() => {
          timers.delete(timer);
          void host(entry);
        }, init.retryMs ?? 30_000);
        timer.unref();
        timers.add(timer);
      }
    };

    const register = async (entry: McpServerEntry, by: string, signal: AbortSignal, trace: OutboundTrace) => {
      if (configured.has(entry.name)) {
        throw new PlexusError(
          'CONFLICT',
          `MCP server ${entry.name} is configured in plexus.yaml (mcp.servers); register it under another name`,
          { details: { pointer: '/name' } },
        );
      }
      const verbs = await bridge(entry, trace);
      registered.set(entry.name, entry);
      await recordRegistration(log, MCP_REGISTRATIONS, entry, by, { signal });
      logger.info({ agent: entry.name, by, server: describeEntry(entry) }, 'mcp bridge: server registered');
      return verbs;
    };

    const unregister = async (name: string, by: string, signal: AbortSignal) => {
      if (configured.has(name)) {
        throw new PlexusError(
          'CONFLICT',
          `MCP server ${name} is configured in plexus.yaml (mcp.servers), not registered at run time: remove it there`,
          { details: { pointer: '/name' } },
        );
      }
      if (!registered.has(name)) {
        const known = [...registered.keys()];
        throw new PlexusError(
          'NOT_FOUND',
          `no MCP server named ${JSON.stringify(name)} was registered at run time; registered: ${known.length === 0 ? 'none' : known.join(', ')}`,
          { details: { pointer: '/name' } },
        );
      }
      // recorded first: a removal that cannot be recorded changes nothing
      await recordRemoval(log, MCP_REGISTRATIONS, name, by, { signal });
      registered.delete(name);
      const b = bridged.get(name);
      bridged.delete(name);
      await b?.link.close();
      const card = runtime.agents.registry.find(name)?.card;
      const verbs = card?.capabilities.map((c) => c.verb) ?? [];
      if (card !== undefined && card.extensions?.[MCP_BRIDGE_EXTENSION] !== undefined)
        await runtime.agents.remove(name);
      logger.info({ agent: name, by }, 'mcp bridge: server unregistered');
      return verbs;
    };

    return {
      name: 'mcp-bridge',
      register: () => undefined,
      async start() {
        const entries = [...init.servers];
        if (init.register === true) {
          const saved = await loadRegistrations(log, MCP_REGISTRATIONS, (seq, error) => {
            logger.warn(
              { seq, error: String(error) },
              'mcp bridge: a stored registration no longer parses; skipped',
            );
          });
          for (const entry of saved.filter((s) => !configured.has(s.name))) {
            registered.set(entry.name, entry);
            entries.push(entry);
          }
          await runtime.agents.add(registerAgent(register, unregister));
        }
        await Promise.all(entries.map(host));
      },
      async stop() {
        stopping.abort();
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        await Promise.all([...bridged.values()].map((b) => b.link.close()));
        bridged.clear();
      },
    };
  };
}
