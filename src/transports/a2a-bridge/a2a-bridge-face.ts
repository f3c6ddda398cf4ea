/**
 * The A2A client bridge as a node plug-in (issue 14 item 4, docs/decisions/a2a.md A2A-13,
 * A2A-19…21): once the node listens, each `a2a.agents` entry — and, with `announce`, each agent
 * added by `bridge.announceA2AAgent` and kept in the log — has its card fetched and its bridge
 * agent hosted (`runtime.agents.add`), so its skills are verbs every face can call and
 * `a2a+https://<its url>` reaches it. The card is fetched again when its `Cache-Control` max-age
 * runs out (revalidated with its `ETag`): changed skills replace the agent's verbs; a card that
 * cannot be fetched any more marks the verbs unavailable (each call fails `UNAVAILABLE` saying
 * why) until it can. An entry whose card cannot be fetched at start is logged and tried again
 * every `retryMs`. `bridge.removeA2AAgent` removes an announced agent (A2A-22). It serves no
 * routes.
 */
import { PlexusError, toPlexusError } from '../../core/errors.js';
import { A2A_BRIDGE_EXTENSION, targetUrl } from '../../runtime/index.js';
import { loadRegistrations, recordRegistration, recordRemoval } from '../bridge/bridge-registrations.js';
import type { Face, FaceFactory } from '../face.js';
import { silentLogger } from '../face-components.js';
import type { OutboundUrlPolicy } from '../outbound-url.js';
import { tracedFetch, withOutboundTrace } from '../outbound-trace.js';
import { defineA2aBridgeAgent, verbSegment } from './a2a-agent.js';
import { A2A_AGENT_NAME_PATTERN, type A2aAgentEntry } from './a2a-agent-entry.js';
import { checkAgentUrl, fetchA2aCard, type FetchedCard } from './a2a-card-fetch.js';
import { A2A_ANNOUNCEMENTS } from './a2a-registrations.js';
import { announceAgent } from './announce-agent.js';

/** Options of {@link a2aBridgeFace}. */
export interface A2aBridgeInit {
  /** The agents of `plexus.yaml`'s `a2a.agents`. */
  readonly agents: readonly A2aAgentEntry[];
  /**
   * Host `bridge.announceA2AAgent` (and bridge the agents it announced before), admitting the
   * URLs this policy admits (`a2a.announce`: loopback on a dev node, `allowHosts`). Absent = off.
   */
  readonly announce?: OutboundUrlPolicy;
  /** How long after a failed card fetch it is tried again, ms. @default 30000 */
  readonly retryMs?: number;
  /** The shortest time between two fetches of one card, whatever its max-age says, ms. @default 10000 */
  readonly minRefreshMs?: number;
  /** When a card's answer has no `Cache-Control` max-age, how long until it is fetched again, ms. @default 300000 */
  readonly defaultRefreshMs?: number;
}

/** The longest wait between two fetches of one card (a day), ms. */
const MAX_REFRESH_MS = 86_400_000;

interface Bridged {
  readonly entry: A2aAgentEntry;
  /** Added by an announcement: the outbound URL policy applies. */
  readonly announced: boolean;
  /** The card's JSON the agent was last defined with, to skip fetches that change nothing. */
  cardJson: string;
  etag?: string;
  /** Set while the card cannot be fetched: every call fails with it. */
  gone?: PlexusError;
  timer?: NodeJS.Timeout;
  /** Fetches of this card, one after another. */
  chain: Promise<unknown>;
}

/** An agent id from a card's name (an announcement without a name). */
function nameFromCard(name: string): string {
  return verbSegment(name === '' ? 'agent' : name).slice(0, 63);
}

/**
 * The bridge's factory.
 * @example createNode({ faces: [...defaultFaces(init), a2aBridgeFace({ agents: [{ name: 'weather', url: 'http://127.0.0.1:4000' }] })] });
 */
export function a2aBridgeFace(init: A2aBridgeInit): FaceFactory {
  return (components): Face => {
    const { runtime, log } = components;
    const logger = components.logger ?? silentLogger;
    // OBS-48: card fetches are CLIENT spans too (and carry a trace when one is current: OBS-59)
    const cardFetch = tracedFetch(fetch, components.tracing);
    const retryMs = init.retryMs ?? 30_000;
    const minRefreshMs = init.minRefreshMs ?? 10_000;
    const defaultRefreshMs = init.defaultRefreshMs ?? 300_000;
    const stopping = new AbortController();
    const timers = new Set<NodeJS.Timeout>();
    const bridged = new Map<string, Bridged>();
    const configured = new Set(init.agents.map((a) => a.name));
    /** The agents announced and not removed (hosted or still being tried), by name. */
    const announcedNow = new Map<string, A2aAgentEntry>();
    const stopped = (): boolean => stopping.signal.aborted;

    const later = (ms: number, run: () => void): NodeJS.Timeout => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        run();
      }, ms);
      timer.unref();
      timers.add(timer);
      return timer;
    };

    const define = (b: Bridged, fetched: FetchedCard) =>
      defineA2aBridgeAgent(b.entry, fetched.card, {
        gone: () => b.gone,
        noRedirects: b.announced,
        ...(components.tracing === undefined ? {} : { tracing: components.tracing }),
      });

    /** Fetches the card again in `maxAgeMs` (bounded), or after `retryMs` while it is gone. */
    const schedule = (b: Bridged, maxAgeMs: number | undefined): void => {
      if (b.timer !== undefined) {
        clearTimeout(b.timer);
        timers.delete(b.timer);
      }
      const wait =
        b.gone !== undefined
          ? retryMs
          : Math.min(MAX_REFRESH_MS, Math.max(minRefreshMs, maxAgeMs ?? defaultRefreshMs));
      b.timer = later(wait, () => {
        refresh(b);
      });
    };

    const back = (b: Bridged): void => {
      if (b.gone === undefined) return;
      delete b.gone;
      logger.info({ agent: b.entry.name, url: b.entry.url }, 'a2a bridge: agent answers again');
    };

    /** Revalidates the card: a changed card replaces the agent; a failed fetch marks it gone. */
    function refresh(b: Bridged): void {
      b.chain = b.chain.then(async () => {
        if (stopped() || bridged.get(b.entry.name) !== b) return;
        try {
          const answer = await fetchA2aCard(b.entry, {
            fetch: cardFetch,
            ...(b.etag === undefined ? {} : { etag: b.etag }),
            signal: stopping.signal,
            ...(b.announced && init.announce !== undefined ? { policy: init.announce } : {}),
          });
          if (stopped() || bridged.get(b.entry.name) !== b) return;
          if (!answer.changed) {
            back(b);
            schedule(b, answer.maxAgeMs);
            return;
          }
          const { fetched } = answer;
          if (fetched.etag === undefined) delete b.etag;
          else b.etag = fetched.etag;
          const json = JSON.stringify(fetched.json);
          if (json !== b.cardJson) {
            const definition = await define(b, fetched);
            await runtime.agents.add(definition);
            b.cardJson = json;
            logger.info(
              { agent: b.entry.name, verbs: definition.card.capabilities.length },
              'a2a bridge: card changed; verbs followed',
            );
          }
          back(b);
          schedule(b, fetched.maxAgeMs);
        } catch (error) {
          if (stopped()) return;
          const why = toPlexusError(error).message;
          if (b.gone === undefined)
            logger.warn({ agent: b.entry.name, url: b.entry.url, error: why }, 'a2a bridge: agent gone');
          b.gone = new PlexusError(
            'UNAVAILABLE',
            `the A2A agent ${b.entry.name} (${b.entry.url}) is unavailable since its card could not be fetched again (${why}); its verbs answer once it can be, tried every ${Math.round(retryMs / 1000)} s`,
            { retryable: true, details: { agent: b.entry.name, url: b.entry.url } },
          );
          schedule(b, undefined);
        }
      });
    }

    /** The bridged agent already at `url` (another name), if any. */
    const bridgedAt = (url: string): A2aAgentEntry | undefined => {
      const wanted = targetUrl(new URL(url));
      return [...bridged.values()].find((b) => targetUrl(new URL(b.entry.url)) === wanted)?.entry;
    };

    /** Hosts `entry` with its `fetched` card (replacing an earlier bridge of the name). */
    const adopt = async (
      entry: A2aAgentEntry,
      announced: boolean,
      fetched: FetchedCard,
    ): Promise<readonly string[]> => {
      const existing = runtime.agents.registry.find(entry.name);
      if (existing !== undefined && existing.card.extensions?.[A2A_BRIDGE_EXTENSION] === undefined) {
        throw new PlexusError(
          'CONFLICT',
          `an agent with id ${JSON.stringify(entry.name)} already runs on this node and is no A2A bridge; choose another name`,
          { details: { pointer: '/name' } },
        );
      }
      const b: Bridged = {
        entry,
        announced,
        cardJson: JSON.stringify(fetched.json),
        chain: Promise.resolve(),
      };
      if (fetched.etag !== undefined) b.etag = fetched.etag;
      const definition = await define(b, fetched);
      await runtime.agents.add(definition);
      const earlier = bridged.get(entry.name);
      if (earlier?.timer !== undefined) {
        clearTimeout(earlier.timer);
        timers.delete(earlier.timer);
      }
      bridged.set(entry.name, b);
      schedule(b, fetched.maxAgeMs);
      return definition.card.capabilities.map((c) => c.verb);
    };

    const host = async (entry: A2aAgentEntry, announced: boolean): Promise<void> => {
      if (stopped()) return;
      if (announced && announcedNow.get(entry.name) !== entry) return; // removed (or replaced) meanwhile
      const policy = announced ? init.announce : undefined;
      try {
        if (policy !== undefined)
          checkAgentUrl(entry.url, policy, '/url', `the url of A2A agent ${entry.name}`);
      } catch (error) {
        // the policy changed since it was announced: not retried
        logger.error(
          { agent: entry.name, url: entry.url, error: String(error) },
          'a2a bridge: announced agent not hosted',
        );
        return;
      }
      try {
        const answer = await fetchA2aCard(entry, {
          fetch: cardFetch,
          signal: stopping.signal,
          ...(policy === undefined ? {} : { policy }),
        });
        if (!answer.changed) throw new PlexusError('UNAVAILABLE', 'the card was not sent');
        if (stopped() || (announced && announcedNow.get(entry.name) !== entry)) return;
        const verbs = await adopt(entry, announced, answer.fetched);
        logger.info({ agent: entry.name, url: entry.url, verbs: verbs.length }, 'a2a bridge: agent hosted');
      } catch (error) {
        if (stopped()) return;
        logger.error(
          { agent: entry.name, url: entry.url, error: String(error) },
          'a2a bridge: agent not hosted; retrying',
        );
        later(retryMs, () => {
          void host(entry, announced);
        });
      }
    };

    const announceHandler = (policy: OutboundUrlPolicy) =>
      announceAgent(async (given, by, signal, trace) => {
        checkAgentUrl(given.url, policy, '/url', 'the A2A agent url');
        // OBS-59: the fetch is a CLIENT span of the announcing call's trace (only the fetch: the
        // refreshes scheduled later are requests of their own)
        const answer = await withOutboundTrace(trace, () =>
          fetchA2aCard(given, { signal, policy, fetch: cardFetch }),
        );
        if (!answer.changed) throw new PlexusError('UNAVAILABLE', 'the card was not sent');
        const name = given.name ?? nameFromCard(answer.fetched.card.name);
        if (!A2A_AGENT_NAME_PATTERN.test(name))
          throw new PlexusError('INVALID_PARAMS', `give the agent a name: its card's name makes ${name}`, {
            details: { pointer: '/name' },
          });
        if (configured.has(name)) {
          throw new PlexusError(
            'CONFLICT',
            `A2A agent ${name} is configured in plexus.yaml (a2a.agents); announce it under another name`,
            { details: { pointer: '/name' } },
          );
        }
        const twin = bridgedAt(given.url);
        if (twin !== undefined && twin.name !== name) {
          throw new PlexusError(
            'CONFLICT',
            `the A2A agent at ${given.url} is already bridged as ${twin.name}; announce it under that name to refresh it`,
            { details: { pointer: '/url', agent: twin.name } },
          );
        }
        const entry: A2aAgentEntry = { ...given, name };
        const verbs = await adopt(entry, true, answer.fetched);
        await recordRegistration(log, A2A_ANNOUNCEMENTS, entry, by, { signal });
        announcedNow.set(name, entry);
        logger.info({ agent: name, by, url: entry.url }, 'a2a bridge: agent announced');
        return { name, url: entry.url, verbs };
      }, remove);

    /**
     * `bridge.removeA2AAgent` (A2A-22): the removal is recorded first, then the agent goes
     * (its verbs with it), so a node that stops between the two does not bridge it again.
     */
    async function remove(name: string, by: string, signal: AbortSignal) {
      if (configured.has(name)) {
        throw new PlexusError(
          'CONFLICT',
          `A2A agent ${name} is configured in plexus.yaml (a2a.agents), not announced; remove it from a2a.agents and restart the node`,
          { details: { pointer: '/name' } },
        );
      }
      const entry = announcedNow.get(name);
      if (entry === undefined) {
        const known = [...announcedNow.keys()];
        throw new PlexusError(
          'NOT_FOUND',
          `no A2A agent named ${JSON.stringify(name)} was announced on this node; ${known.length === 0 ? 'none is' : `announced: ${known.join(', ')}`}`,
          { details: { pointer: '/name', announced: known } },
        );
      }
      await recordRemoval(log, A2A_ANNOUNCEMENTS, name, by, { signal });
      announcedNow.delete(name);
      const b = bridged.get(name);
      if (b?.timer !== undefined) {
        clearTimeout(b.timer);
        timers.delete(b.timer);
      }
      bridged.delete(name);
      const card = runtime.agents.registry.find(name)?.card;
      const verbs = card?.capabilities.map((c) => c.verb) ?? [];
      if (card !== undefined && card.extensions?.[A2A_BRIDGE_EXTENSION] !== undefined) {
        try {
          await runtime.agents.remove(name);
        } catch (error) {
          if (toPlexusError(error).code !== 'NOT_FOUND') throw error;
        }
      }
      logger.info({ agent: name, by, url: entry.url }, 'a2a bridge: announced agent removed');
      return { name, url: entry.url, verbs };
    }

    return {
      name: 'a2a-bridge',
      register: () => undefined,
      async start() {
        const entries = init.agents.map((entry) => ({ entry, announced: false }));
        if (init.announce !== undefined) {
          const saved = await loadRegistrations(log, A2A_ANNOUNCEMENTS, (seq, error) => {
            logger.warn(
              { seq, error: String(error) },
              'a2a bridge: a stored announcement no longer parses; skipped',
            );
          });
          const kept = saved.filter((s) => !configured.has(s.name));
          for (const entry of kept) announcedNow.set(entry.name, entry);
          entries.push(...kept.map((entry) => ({ entry, announced: true })));
          await runtime.agents.add(announceHandler(init.announce));
        }
        await Promise.all(entries.map(({ entry, announced }) => host(entry, announced)));
      },
      stop() {
        stopping.abort();
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        bridged.clear();
        announcedNow.clear();
        return Promise.resolve();
      },
    };
  };
}
