/**
 * The A2A client bridge as a node plug-in (issue 14 item 4, docs/decisions/a2a.md A2A-13): once
 * the node listens, each `a2a.agents` entry's card is fetched and its bridge agent hosted
 * (`runtime.agents.add`), so its skills are verbs every face can call. An entry whose card
 * cannot be fetched is logged and tried again every `retryMs` until it is hosted or the node
 * stops. It serves no routes.
 */
import type { Face, FaceFactory } from '../face.js';
import { silentLogger } from '../face-components.js';
import { a2aBridgeAgent, type A2aAgentEntry } from './a2a-agent.js';

/** Options of {@link a2aBridgeFace}. */
export interface A2aBridgeInit {
  readonly agents: readonly A2aAgentEntry[];
  /** How long after a failed card fetch it is tried again, ms. @default 30000 */
  readonly retryMs?: number;
}

/**
 * The bridge's factory.
 * @example createNode({ faces: [...defaultFaces(init), a2aBridgeFace({ agents: [{ name: 'weather', url: 'http://127.0.0.1:4000' }] })] });
 */
export function a2aBridgeFace(init: A2aBridgeInit): FaceFactory {
  return (components): Face => {
    const logger = components.logger ?? silentLogger;
    const stopping = new AbortController();
    const timers = new Set<NodeJS.Timeout>();
    const stopped = (): boolean => stopping.signal.aborted;
    const host = async (entry: A2aAgentEntry): Promise<void> => {
      if (stopped()) return;
      try {
        const definition = await a2aBridgeAgent(entry, stopping.signal);
        await components.runtime.agents.add(definition);
        logger.info(
          { agent: entry.name, url: entry.url, verbs: definition.card.capabilities.length },
          'a2a bridge: agent hosted',
        );
      } catch (error) {
        if (stopped()) return;
        logger.error(
          { agent: entry.name, url: entry.url, error: String(error) },
          'a2a bridge: agent not hosted; retrying',
        );
        const timer = setTimeout(() => {
          timers.delete(timer);
          void host(entry);
        }, init.retryMs ?? 30_000);
        timer.unref();
        timers.add(timer);
      }
    };
    return {
      name: 'a2a-bridge',
      register: () => undefined,
      async start() {
        await Promise.all(init.agents.map(host));
      },
      stop() {
        stopping.abort();
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        return Promise.resolve();
      },
    };
  };
}
