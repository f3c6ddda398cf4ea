/**
 * Discovery on a registry miss (issue 15 item 4; docs/decisions/mesh.md MESH-20): when no
 * card of the registry offers a verb, lookups by capability — the router, `GET
 * /agents?capability=`, `tool.discover` — ask the discoveries plugged into this port (the mesh
 * face plugs in its DHT lookup once its peer runs), which add the cards they find to the
 * registry as remote cards. The lookup is then answered from the registry again.
 *
 * - Nothing is asked when the registry has a provider, so known verbs cost nothing.
 * - Lookups of one verb running at the same time share one discovery.
 * - At most `maxConcurrent` verbs are looked up at once; beyond that a miss stays a miss
 *   (requests for made-up verbs cannot pile up discoveries).
 * - A discovery bounds its own time; the caller's signal ends the wait early. A failing
 *   discovery is logged and counts as "nothing found".
 */
import { toPlexusError } from '../../core/errors.js';
import type { AgentCard } from '../../core/records/agent-card.js';
import { silentLogger, type Logger } from '../../core/logger.js';
import { stripVerbVersion, verbNameProblem } from '../../core/verb-name.js';
import type { SignalOptions } from '../../store/event-log.js';
import type { Registry } from './registry.js';

/** Finds agents offering a verb beyond this node's registry, and adds their cards to it. */
export interface CapabilityDiscovery {
  /**
   * Looks for providers of `verb` (no `@version`) and upserts the cards found into the
   * registry (origin `remote`). Resolves when done, after its own time bound, or when
   * `signal` aborts. May reject; the port logs it.
   */
  discover(verb: string, options: { readonly signal: AbortSignal }): Promise<void>;
}

/** The registry's discovery port: where discoveries plug in, and the lookup that uses them. */
export interface DiscoveryPort {
  /**
   * Plugs `discovery` in (several may be: each is asked). Resolves nothing; returns the
   * function that unplugs it again.
   */
  provide(discovery: CapabilityDiscovery): () => void;
  /**
   * The registry's cards offering `verb`; when it has none and a discovery is plugged in,
   * after asking the discoveries. Never rejects (an aborted `signal` answers what is known).
   */
  providers(verb: string, options?: SignalOptions): Promise<readonly AgentCard[]>;
  /** True when a discovery is plugged in. */
  readonly active: boolean;
}

/** Options of {@link discoveryPort}. */
export interface DiscoveryPortInit {
  /** The registry the discoveries fill. */
  readonly registry: Pick<Registry, 'byCapability'>;
  /** Most verbs looked up at once. @default 8 */
  readonly maxConcurrent?: number;
  /** @default silentLogger */
  readonly logger?: Logger;
}

/** Waits for `work`, or until `signal` aborts (then resolves at once). */
function untilAborted(work: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return work;
  if (signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = (): void => {
      signal.removeEventListener('abort', done);
      resolve();
    };
    signal.addEventListener('abort', done, { once: true });
    void work.finally(done);
  });
}

/**
 * Creates the port of a registry.
 *
 * @example
 * const port = discoveryPort({ registry });
 * const unplug = port.provide({ discover: async (verb, { signal }) => { ... } });
 * const cards = await port.providers('weather.forecast.get');
 */
export function discoveryPort(init: DiscoveryPortInit): DiscoveryPort {
  const { registry } = init;
  const maxConcurrent = init.maxConcurrent ?? 8;
  const logger = init.logger ?? silentLogger;
  const plugged = new Set<CapabilityDiscovery>();
  const running = new Map<string, Promise<void>>();

  const ask = (verb: string): Promise<void> | undefined => {
    const current = running.get(verb);
    if (current !== undefined) return current;
    if (running.size >= maxConcurrent) {
      logger.info({ verb, maxConcurrent }, 'capability discovery skipped: too many lookups running');
      return undefined;
    }
    // The discoveries bound their own time; this signal only stops them when they are unplugged.
    const controller = new AbortController();
    const work = Promise.all(
      [...plugged].map((discovery) =>
        discovery.discover(verb, { signal: controller.signal }).catch((error: unknown) => {
          logger.warn({ verb, err: toPlexusError(error).message }, 'capability discovery failed');
        }),
      ),
    ).then(() => undefined);
    const tracked = work.finally(() => running.delete(verb));
    running.set(verb, tracked);
    return tracked;
  };

  return {
    provide(discovery) {
      plugged.add(discovery);
      return () => {
        plugged.delete(discovery);
      };
    },
    async providers(verb, options = {}) {
      const known = registry.byCapability(verb);
      if (known.length > 0 || plugged.size === 0 || verbNameProblem(verb) !== undefined) return known;
      const work = ask(stripVerbVersion(verb));
      if (work !== undefined) await untilAborted(work, options.signal);
      return registry.byCapability(verb);
    },
    get active() {
      return plugged.size > 0;
    },
  };
}
