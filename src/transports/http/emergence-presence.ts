/**
 * How long an agent announced by HELLO without an endpoint stays registered (issue 11 item 4).
 * Such an agent cannot be reached by this node (it named nowhere to send HELPs); its card says
 * only that it was online. It expires `ttlMs` after its last HELLO (default 5 minutes) and is
 * removed from the registry (a `registry.removed` event) instead of lingering forever.
 *
 * Sweeps run on a timer (every `min(ttlMs, 30 s)`, unref'd) and before each Emergence request
 * once that period has passed on the injected clock, so a test with its own clock sees
 * expiry without waiting. Cards of this kind found in the registry with no HELLO seen by this
 * process (registered before a restart) get one full TTL from the start.
 */
import type { AgentCard } from '../../core/records/agent-card.js';
import { PlexusError } from '../../core/errors.js';
import type { Registry } from '../../runtime/agents/registry.js';
import { REMOTE_PEER_EXTENSION } from '../../runtime/routing/index.js';
import { silentLogger, type Logger } from '../../core/logger.js';
import { emergenceEndpointOf } from './emergence-endpoint.js';

/** The default lifetime of an endpoint-less HELLO registration: 5 minutes. */
export const DEFAULT_HELLO_TTL_MS = 5 * 60 * 1000;

/** The longest wait between two sweeps, ms. */
const MAX_SWEEP_EVERY_MS = 30_000;

/** Options of {@link emergencePresence}. */
export interface EmergencePresenceInit {
  /** Lifetime of a HELLO without an endpoint, ms. @default 300000 */
  readonly ttlMs?: number;
  /** The clock, Unix ms. @default Date.now */
  readonly now?: () => number;
  /** Where expiries are logged. @default silentLogger */
  readonly logger?: Logger;
}

/** The HELLO registrations' clock. */
export interface EmergencePresence {
  /** Records a HELLO that registered `card`. */
  seen(card: AgentCard): void;
  /** Sweeps when the sweep period has passed since the last one. */
  maybeSweep(): Promise<void>;
  /** Removes every expired registration now; resolves with the ids removed. */
  sweep(): Promise<readonly string[]>;
  /** Starts the sweep timer. */
  start(): void;
  /** Stops the timer; safe to call twice. */
  stop(): void;
}

/** True for a card a HELLO registered without an endpoint (not one learned from a peer node). */
function expires(card: AgentCard): boolean {
  return (
    card.origin === 'remote' &&
    (card.protocols ?? []).includes('emergence') &&
    emergenceEndpointOf(card) === undefined &&
    card.extensions?.[REMOTE_PEER_EXTENSION] === undefined
  );
}

/**
 * Creates the presence clock over `registry`.
 *
 * @throws PlexusError `INVALID_PARAMS` when `ttlMs` is not a whole number of ms ≥ 1.
 * @example
 * const presence = emergencePresence(runtime.agents.registry, { ttlMs: 300_000 });
 * presence.start();
 */
export function emergencePresence(registry: Registry, init: EmergencePresenceInit = {}): EmergencePresence {
  const ttlMs = init.ttlMs ?? DEFAULT_HELLO_TTL_MS;
  if (!Number.isSafeInteger(ttlMs) || ttlMs < 1) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `helloTtlMs must be a whole number of ms ≥ 1, got ${String(ttlMs)}`,
    );
  }
  const now = init.now ?? Date.now;
  const logger = init.logger ?? silentLogger;
  const every = Math.min(ttlMs, MAX_SWEEP_EVERY_MS);
  const startedAt = now();
  const lastHello = new Map<string, number>();
  let lastSweep = startedAt;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<readonly string[]> | undefined;

  async function sweepOnce(): Promise<readonly string[]> {
    const t = now();
    lastSweep = t;
    const removed: string[] = [];
    for (const card of registry.list()) {
      if (!expires(card)) continue;
      const last = lastHello.get(card.id) ?? startedAt;
      if (t - last < ttlMs) continue;
      try {
        await registry.remove(card.id);
        removed.push(card.id);
      } catch (error) {
        logger.warn({ agent: card.id, err: String(error) }, 'could not expire a HELLO registration');
      }
      lastHello.delete(card.id);
    }
    if (removed.length > 0) logger.info({ agents: removed, ttlMs }, 'HELLO registrations expired');
    return removed;
  }

  function sweep(): Promise<readonly string[]> {
    running ??= sweepOnce().finally(() => {
      running = undefined;
    });
    return running;
  }

  return {
    seen(card) {
      if (expires(card)) lastHello.set(card.id, now());
      else lastHello.delete(card.id);
    },
    async maybeSweep() {
      if (now() - lastSweep >= every) await sweep();
    },
    sweep,
    start() {
      if (timer !== undefined) return;
      timer = setInterval(() => {
        void sweep().catch(() => undefined);
      }, every);
      timer.unref();
    },
    stop() {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
    },
  };
}
