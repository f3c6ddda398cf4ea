/**
 * The peer directory: polls each configured peer's `GET /agents`, keeps the peer's own
 * (origin `local`) cards in this node's registry with origin `remote`, removes the ones that
 * disappear, and tells the `RemoteInvoker` which peer each remote card came from.
 *
 * - A remote card carries `extensions._x_plexus_peer` = the peer's URL, so ownership is part
 *   of the (durable) registry: after a restart, calls reach the right peer before the first
 *   poll, and cards of peers no longer configured are removed at `start()`.
 * - Cards that are `remote` on the peer are never taken (no loops, no second-hand cards);
 *   a local card with the same id always wins; the first peer (config order) to announce an
 *   id owns it. A card the mesh brought from the same node (its mesh PeerId is the peer's
 *   `did`) stays the one entry, without a warning.
 * - A card is written only when it changed, so an idle mesh adds no events to the log.
 * - A peer that cannot be polled is polled less often (the interval doubles per failure up
 *   to `maxIntervalMs`); after `removeAfterFailures` failures in a row its cards are removed,
 *   and they come back with the next successful poll. The poll loop logs and never throws.
 */
import { canonicalizeJcs } from '../../core/canonical/jcs.js';
import { positiveWhole } from '../positive-whole.js';
import { PlexusError, toPlexusError } from '../../core/errors.js';
import { isJsonObject, type JsonObject } from '../../core/json.js';
import type { AgentCard } from '../../core/records/agent-card.js';
import type { Runtime } from '../../runtime/index.js';
import { isLoopbackHost } from '../../security/auth/index.js';
import type { SignalOptions } from '../../store/index.js';
import { silentLogger, type Logger } from '../../core/logger.js';
import { MESH_PEER_EXTENSION } from '../mesh/capability-gossip.js';
import {
  PEER_AGENTS_PATH,
  PEER_EXTENSION,
  normalizePeerUrl,
  tryPeerDid,
  type PeerConfig,
} from './peer-config.js';
import type { PeerResolver } from './peer-invoker.js';
import { realPollTimer, type PollTimer } from './poll-timer.js';
import { jittered } from './retry.js';

/** Options of {@link peerDirectory}. */
export interface PeerDirectoryInit {
  /** The peer nodes, in priority order. */
  readonly peers: readonly PeerConfig[];
  /** The runtime whose registry receives the remote cards (started before the directory). */
  readonly runtime: Pick<Runtime, 'agents'>;
  /** Time between polls of a healthy peer, ms. @default 10000 */
  readonly intervalMs?: number;
  /** The longest time between polls of a failing peer, ms. @default 60000 */
  readonly maxIntervalMs?: number;
  /** Longest wait for one `GET /agents`, ms. @default 5000 */
  readonly requestTimeoutMs?: number;
  /** Failed polls in a row after which a peer's cards are removed. @default 3 */
  readonly removeAfterFailures?: number;
  /** The HTTP client. @default globalThis.fetch */
  readonly fetch?: typeof globalThis.fetch;
  /** Random numbers in [0, 1) for the poll jitter (±10 %). @default Math.random */
  readonly random?: () => number;
  /** Where the directory logs. @default silentLogger */
  readonly logger?: Logger;
  /** The timer of the poll loop. @default realPollTimer() */
  readonly timer?: PollTimer;
}

/**
 * True when `card` came from the mesh peer whose identity is `did` (a did:key or PeerId): the
 * HTTP peer and the mesh peer are one node, and its card is one registry entry.
 */
function sameNodeOnMesh(card: AgentCard, did: string | undefined): boolean {
  const meshPeer = card.extensions?.[MESH_PEER_EXTENSION];
  if (did === undefined || card.origin !== 'remote' || typeof meshPeer !== 'string') return false;
  const node = tryPeerDid(did);
  return node !== undefined && tryPeerDid(meshPeer) === node;
}

/** What the directory knows about one peer. */
export interface PeerStatus {
  /** The peer's normalised URL. */
  readonly url: string;
  /** The configured peer id, if any. */
  readonly did?: string;
  /** True when the last poll succeeded. */
  readonly reachable: boolean;
  /** Failed polls in a row. */
  readonly failures: number;
  /** Ids of the agents this node holds from the peer, sorted. */
  readonly agents: readonly string[];
  /** Why the last poll failed. */
  readonly lastError?: string;
}

/** The peer directory: a {@link PeerResolver} with a lifecycle. */
export interface PeerDirectory extends PeerResolver {
  /** The configured peers, URLs normalised. */
  readonly peers: readonly PeerConfig[];
  /**
   * Removes remote cards of peers that are no longer configured and starts polling (the
   * first polls run at once, in the background). Idempotent.
   */
  start(): Promise<void>;
  /** Stops polling and aborts polls in flight. Safe to call twice; remote cards stay registered. */
  stop(): Promise<void>;
  /** Polls every peer now and resolves with their status (never rejects on a peer's failure). */
  refresh(options?: SignalOptions): Promise<readonly PeerStatus[]>;
  /** The status of every peer, in config order. */
  status(): readonly PeerStatus[];
}

interface PeerState {
  readonly config: PeerConfig;
  reachable: boolean;
  failures: number;
  lastError: string | undefined;
  /** Cancels the scheduled poll, while one is scheduled. */
  cancel: (() => void) | undefined;
  chain: Promise<void>;
  readonly warned: Set<string>;
}

const DEFAULTS = {
  intervalMs: 10_000,
  maxIntervalMs: 60_000,
  requestTimeoutMs: 5_000,
  removeAfterFailures: 3,
};

/**
 * Creates a peer directory.
 *
 * @throws PlexusError `INVALID_PARAMS` for a bad peer URL, a peer listed twice, or a
 *   non-positive interval, timeout or failure count.
 * @example
 * const directory = peerDirectory({ peers: [{ url: 'http://127.0.0.1:3101' }], runtime });
 * await directory.start();
 */
export function peerDirectory(init: PeerDirectoryInit): PeerDirectory {
  const intervalMs = positiveWhole('intervalMs', init.intervalMs ?? DEFAULTS.intervalMs);
  const maxIntervalMs = Math.max(
    intervalMs,
    positiveWhole('maxIntervalMs', init.maxIntervalMs ?? DEFAULTS.maxIntervalMs),
  );
  const requestTimeoutMs = positiveWhole(
    'requestTimeoutMs',
    init.requestTimeoutMs ?? DEFAULTS.requestTimeoutMs,
  );
  const removeAfter = positiveWhole(
    'removeAfterFailures',
    init.removeAfterFailures ?? DEFAULTS.removeAfterFailures,
  );
  const fetchFn = init.fetch ?? globalThis.fetch;
  const random = init.random ?? Math.random;
  const logger = init.logger ?? silentLogger;
  const timer = init.timer ?? realPollTimer();
  const { registry } = init.runtime.agents;

  const states = new Map<string, PeerState>();
  for (const peer of init.peers) {
    const url = normalizePeerUrl(peer.url);
    if (states.has(url)) {
      throw new PlexusError('INVALID_PARAMS', `peer ${url} is listed twice`, { details: { url } });
    }
    const host = new URL(url).hostname;
    if (url.startsWith('http:') && !isLoopbackHost(host)) {
      logger.warn({ peer: url }, 'peer reached over clear-text HTTP off loopback; use https (D14)');
    }
    states.set(url, {
      config: { ...peer, url },
      reachable: false,
      failures: 0,
      lastError: undefined,
      cancel: undefined,
      chain: Promise.resolve(),
      warned: new Set(),
    });
  }
  const peers = [...states.values()].map((s) => s.config);
  let started = false;
  let lifetime = new AbortController();
  /** Registry changes run one at a time, so ownership checks see the previous writes. */
  let writes: Promise<unknown> = Promise.resolve();
  const serialize = (work: () => Promise<void>): Promise<void> => {
    const next = writes.then(work, work);
    writes = next.catch(() => undefined);
    return next;
  };

  const ownerOf = (card: AgentCard): string | undefined => {
    const owner = card.extensions?.[PEER_EXTENSION];
    return card.origin === 'remote' && typeof owner === 'string' ? owner : undefined;
  };
  const ownedBy = (url: string): AgentCard[] => registry.list().filter((card) => ownerOf(card) === url);

  async function removeCards(cards: readonly AgentCard[], why: string): Promise<void> {
    for (const card of cards) {
      try {
        await registry.remove(card.id);
        logger.info({ agent: card.id, peer: ownerOf(card) }, `remote agent removed: ${why}`);
      } catch (error) {
        const failure = toPlexusError(error);
        if (failure.code !== 'NOT_FOUND') {
          logger.warn(
            { agent: card.id, code: failure.code, err: failure.message },
            'could not remove remote agent',
          );
        }
      }
    }
  }

  async function fetchCards(state: PeerState, signal: AbortSignal): Promise<readonly JsonObject[]> {
    const url = `${state.config.url}${PEER_AGENTS_PATH}`;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (state.config.token !== undefined) headers['authorization'] = `Bearer ${state.config.token}`;
    const response = await fetchFn(url, {
      headers,
      signal: AbortSignal.any([signal, AbortSignal.timeout(requestTimeoutMs)]),
    });
    const text = await response.text();
    if (response.status !== 200) {
      throw new PlexusError('PEER_UNAVAILABLE', `GET ${url} answered HTTP ${String(response.status)}`);
    }
    const value: unknown = JSON.parse(text);
    const list = Array.isArray(value) ? value : isJsonObject(value) ? value['agents'] : undefined;
    if (!Array.isArray(list)) {
      throw new PlexusError('PEER_UNAVAILABLE', `GET ${url} did not answer a list of agent cards`);
    }
    return list.filter((item): item is JsonObject => isJsonObject(item));
  }

  async function apply(state: PeerState, listed: readonly JsonObject[]): Promise<void> {
    const { url } = state.config;
    const seen = new Set<string>();
    for (const raw of listed) {
      const id = raw['id'];
      if (typeof id !== 'string' || raw['origin'] === 'remote') continue;
      seen.add(id);
      const existing = registry.find(id)?.card;
      if (existing !== undefined && ownerOf(existing) !== url) {
        // The same node's agent, known through the mesh as well: one entry (MESH-23).
        if (sameNodeOnMesh(existing, state.config.did)) continue;
        if (!state.warned.has(id)) {
          state.warned.add(id);
          logger.warn(
            { agent: id, peer: url, owner: ownerOf(existing) ?? 'local' },
            'peer announces an agent id this node already has; keeping the existing one',
          );
        }
        continue;
      }
      const desired = remoteCard(raw, url);
      if (existing !== undefined && sameCard(existing, desired)) continue;
      try {
        await registry.upsert(desired, { origin: 'remote' });
      } catch (error) {
        const failure = toPlexusError(error);
        logger.warn({ agent: id, peer: url, code: failure.code, err: failure.message }, 'peer card refused');
      }
    }
    await removeCards(
      ownedBy(url).filter((card) => !seen.has(card.id)),
      'no longer announced by its peer',
    );
  }

  async function poll(state: PeerState, signal: AbortSignal): Promise<void> {
    const { url } = state.config;
    try {
      const listed = await fetchCards(state, signal);
      await serialize(() => apply(state, listed));
      if (!state.reachable && state.failures > 0) logger.info({ peer: url }, 'peer reachable again');
      state.reachable = true;
      state.failures = 0;
      state.lastError = undefined;
    } catch (error) {
      state.reachable = false;
      state.failures += 1;
      state.lastError = describe(error);
      logger.warn({ peer: url, failures: state.failures, err: state.lastError }, 'peer poll failed');
      if (state.failures === removeAfter) {
        await serialize(() => removeCards(ownedBy(url), `peer unreachable for ${String(removeAfter)} polls`));
      }
    }
  }

  /** Queues a poll behind the peer's previous one. Never rejects. */
  function pollQueued(state: PeerState, signal: AbortSignal): Promise<void> {
    const next = state.chain.then(() => (signal.aborted ? undefined : poll(state, signal)));
    state.chain = next.catch(() => undefined);
    return state.chain;
  }

  function schedule(state: PeerState, delayMs: number): void {
    if (!started) return;
    const signal = lifetime.signal;
    state.cancel = timer.after(delayMs, () => {
      state.cancel = undefined;
      void pollQueued(state, signal).then(() => {
        const delay = nextPollDelay(intervalMs, maxIntervalMs, state.failures);
        if (!signal.aborted) schedule(state, jittered(delay, 0.1, random));
      });
    });
  }

  const statusOf = (state: PeerState): PeerStatus => {
    const agents = ownedBy(state.config.url)
      .map((card) => card.id)
      .sort();
    return {
      url: state.config.url,
      ...(state.config.did === undefined ? {} : { did: state.config.did }),
      reachable: state.reachable,
      failures: state.failures,
      agents,
      ...(state.lastError === undefined ? {} : { lastError: state.lastError }),
    };
  };

  return {
    peers,
    peerFor(card: AgentCard): PeerConfig | undefined {
      const owner = ownerOf(card);
      return owner === undefined ? undefined : states.get(owner)?.config;
    },
    async start(): Promise<void> {
      if (started) return;
      started = true;
      lifetime = new AbortController();
      await serialize(() =>
        removeCards(
          registry.list().filter((card) => {
            const owner = ownerOf(card);
            return owner !== undefined && !states.has(owner);
          }),
          'its peer is no longer configured',
        ),
      ).catch((error: unknown) => {
        logger.warn({ err: describe(error) }, 'could not clean up remote agents of removed peers');
      });
      for (const state of states.values()) schedule(state, 0);
    },
    async stop(): Promise<void> {
      if (!started) return;
      started = false;
      lifetime.abort();
      for (const state of states.values()) {
        state.cancel?.();
        state.cancel = undefined;
      }
      await Promise.all([...states.values()].map((state) => state.chain));
      await writes;
    },
    async refresh(options: SignalOptions = {}): Promise<readonly PeerStatus[]> {
      const signal =
        options.signal === undefined ? lifetime.signal : AbortSignal.any([options.signal, lifetime.signal]);
      await Promise.all([...states.values()].map((state) => pollQueued(state, signal)));
      return [...states.values()].map(statusOf);
    },
    status: () => [...states.values()].map(statusOf),
  };
}

/**
 * The time before the next poll of a peer that failed `failures` times in a row: the
 * interval, doubled per failure after the first, capped at `maxIntervalMs` (before jitter).
 */
export function nextPollDelay(intervalMs: number, maxIntervalMs: number, failures: number): number {
  return Math.min(
    intervalMs * 2 ** Math.min(Math.max(0, failures - 1), 30),
    Math.max(intervalMs, maxIntervalMs),
  );
}

/** The card as this node registers it: origin remote, owned by `url`, no peer revision. */
function remoteCard(raw: JsonObject, url: string): AgentCard {
  const rest: JsonObject = { ...raw };
  delete rest['revision'];
  delete rest['origin'];
  const extensions = isJsonObject(rest['extensions']) ? rest['extensions'] : {};
  return {
    ...rest,
    origin: 'remote',
    extensions: { ...extensions, [PEER_EXTENSION]: url },
  } as unknown as AgentCard;
}

function sameCard(stored: AgentCard, desired: AgentCard): boolean {
  const rest: { -readonly [K in keyof AgentCard]?: AgentCard[K] } = { ...stored };
  delete rest.revision;
  try {
    return canonicalizeJcs(rest) === canonicalizeJcs(desired);
  } catch {
    return false;
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause;
  return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
}
