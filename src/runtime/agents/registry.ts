/**
 * The agent registry (Nova26 Req. 1): validated cards with a revision counter, lookup by id
 * or by capability, local and remote origins, and the verb specs registered alongside.
 * Every change is an event in the log and the registry's state is a projection of the log
 * (`runtime.registry`), so it survives restarts and can be rebuilt and compared.
 */
import { PlexusError, toPlexusError } from '../../core/errors.js';
import { findCapability, parseAgentCard } from '../../core/records/agent-card.js';
import type { AgentCard, AgentOrigin } from '../../core/records/agent-card.js';
import type { VerbSpec } from '../../core/records/verb-spec.js';
import { stripVerbVersion } from '../../core/verb-name.js';
import type { EventLog, SignalOptions } from '../../store/event-log.js';
import type { SnapshotStore } from '../../store/projection-snapshots.js';
import { projectionView, type ProjectionView } from '../../store/projection-view.js';
import { verifyProjectionView, type ProjectionCheck } from '../../store/projection-verify.js';
import { canonicalizeJcs } from '../../core/canonical/jcs.js';
import { checkVerbSpecs } from './agent.js';
import { RUNTIME_EVENTS, type AgentCardEventData } from '../events.js';
import { registryProjection, type RegistryEntry, type RegistryState } from './registry-projection.js';

/** Options of {@link createRegistry}. */
export interface RegistryInit {
  /** The node's event log (started by its owner before `start()`). */
  readonly log: EventLog;
  /** Where to keep snapshots of the projection. @default none (rebuild from the log) */
  readonly snapshots?: SnapshotStore;
}

/** Options of {@link Registry.upsert}. */
export interface UpsertOptions extends SignalOptions {
  /** Verb specs of the card's verbs. @default [] */
  readonly verbs?: readonly VerbSpec[];
  /** Where the card comes from. @default the card's own `origin`, else `local` */
  readonly origin?: AgentOrigin;
  /** What caused the change (a message id), stored as the event's causation. */
  readonly causation?: string;
}

/** The agent registry. */
export interface Registry {
  /** Catches up with the log and follows it. Idempotent. @throws PlexusError from the log. */
  start(options?: SignalOptions): Promise<void>;
  /** Stops following the log. Safe to call twice. */
  stop(): Promise<void>;
  /**
   * Registers a card, or updates the card with the same id (revision + 1). The card's own
   * `revision` is ignored: the registry counts. A card, origin and verb specs equal to what is
   * stored change nothing (no event, same revision). Resolves with the stored card.
   *
   * @throws PlexusError `INVALID_PARAMS` with `details.problems` for a card missing required
   *   fields (id, name, version, tier, capabilities) or otherwise invalid, or a bad verb
   *   spec; `UNAVAILABLE` when the registry is not started; the log's append errors.
   */
  upsert(card: AgentCard, options?: UpsertOptions): Promise<AgentCard>;
  /**
   * Removes a card.
   * @throws PlexusError `NOT_FOUND` when no card has that id; the log's append errors.
   */
  remove(id: string, options?: SignalOptions): Promise<void>;
  /** The card with that id. @throws PlexusError `NOT_FOUND`. */
  get(id: string): AgentCard;
  /** The entry (card and verb specs) with that id, or `undefined`. */
  find(id: string): RegistryEntry | undefined;
  /** Every card, sorted by id. */
  list(): readonly AgentCard[];
  /**
   * Every card offering `verb` (compared without `@version` when `verb` has none), sorted
   * by id (Nova26 Req. 1.2).
   */
  byCapability(verb: string): readonly AgentCard[];
  /**
   * The spec of the era of `verb` agent `agentId` serves, if any: with `@version`, exactly that
   * era; without, the era a bare name reaches (the card's first capability of that name).
   */
  verbSpec(agentId: string, verb: string): VerbSpec | undefined;
  /** The live projection view (for `replay --verify` and read-your-writes). */
  readonly view: ProjectionView<RegistryState>;
  /** Rebuilds the projection from the log and compares it with the live state. */
  verify(options?: SignalOptions): Promise<ProjectionCheck>;
}

function notFound(id: string): PlexusError {
  return new PlexusError('NOT_FOUND', `no agent with id ${JSON.stringify(id)} is registered`, {
    details: { agent: id },
  });
}

/**
 * Creates a registry over an event log.
 *
 * @example
 * const registry = createRegistry({ log });
 * await registry.start();
 * const card = await registry.upsert({ id: 'echo', name: 'Echo', version: '1', tier: 'L3', capabilities: [] });
 * card.revision; // 1
 */
export function createRegistry(init: RegistryInit): Registry {
  const { log } = init;
  const view = projectionView({
    log,
    projection: registryProjection,
    ...(init.snapshots === undefined ? {} : { snapshots: init.snapshots }),
  });
  let started = false;
  let writes: Promise<unknown> = Promise.resolve();
  let indexAt = -1;
  let index = new Map<string, AgentCard[]>();

  /** Runs writes one at a time, so each sees the state its predecessor produced. */
  const serialize = <T>(write: () => Promise<T>): Promise<T> => {
    const next = writes.then(write, write);
    writes = next.catch(() => undefined);
    return next;
  };

  const ensureStarted = (): void => {
    if (!started) throw new PlexusError('UNAVAILABLE', 'the registry is not started; call start() first');
  };

  const capabilityIndex = (): Map<string, AgentCard[]> => {
    if (indexAt === view.position()) return index;
    const next = new Map<string, AgentCard[]>();
    const cards = [...view.state().values()].map((e) => e.card).sort((a, b) => compareIds(a.id, b.id));
    for (const card of cards) {
      for (const cap of card.capabilities) {
        for (const key of new Set([cap.verb, stripVerbVersion(cap.verb)])) {
          const list = next.get(key) ?? [];
          if (!list.includes(card)) list.push(card);
          next.set(key, list);
        }
      }
    }
    index = next;
    indexAt = view.position();
    return index;
  };

  const registry: Registry = {
    view,
    async start(options: SignalOptions = {}): Promise<void> {
      if (started) return;
      await view.start(options);
      started = true;
    },
    async stop(): Promise<void> {
      if (!started) return;
      started = false;
      await writes;
      await view.stop();
    },
    upsert(card: AgentCard, options: UpsertOptions = {}): Promise<AgentCard> {
      try {
        ensureStarted();
        const checked = parseAgentCard(card);
        const verbs = checkVerbSpecs(checked, options.verbs ?? []);
        const origin = options.origin ?? checked.origin ?? 'local';
        return serialize(async () => {
          const previous = view.state().get(checked.id);
          // Re-registering the same card (every restart does) keeps its revision: no event.
          if (previous !== undefined && sameRegistration(previous, checked, origin, verbs))
            return previous.card;
          const stored: AgentCard = { ...checked, origin, revision: (previous?.card.revision ?? 0) + 1 };
          const data: AgentCardEventData = { card: stored, verbs };
          const event = await log.append(
            {
              type: previous === undefined ? RUNTIME_EVENTS.agentRegistered : RUNTIME_EVENTS.agentUpdated,
              data,
              ...(options.causation === undefined ? {} : { causation: options.causation }),
            },
            options.signal === undefined ? {} : { signal: options.signal },
          );
          await view.waitFor(event.seq, options);
          return registry.get(checked.id);
        });
      } catch (error) {
        return Promise.reject(toPlexusError(error));
      }
    },
    remove(id: string, options: SignalOptions = {}): Promise<void> {
      try {
        ensureStarted();
      } catch (error) {
        return Promise.reject(toPlexusError(error));
      }
      return serialize(async () => {
        if (!view.state().has(id)) throw notFound(id);
        const event = await log.append({ type: RUNTIME_EVENTS.agentRemoved, data: { id } }, options);
        await view.waitFor(event.seq, options);
      });
    },
    get(id: string): AgentCard {
      const entry = view.state().get(id);
      if (entry === undefined) throw notFound(id);
      return entry.card;
    },
    find: (id) => view.state().get(id),
    list: () => [...view.state().values()].map((e) => e.card).sort((a, b) => compareIds(a.id, b.id)),
    byCapability(verb: string): readonly AgentCard[] {
      const cards = capabilityIndex().get(verb) ?? [];
      return cards.filter((card) => findCapability(card, verb) !== undefined);
    },
    verbSpec(agentId: string, verb: string): VerbSpec | undefined {
      const entry = view.state().get(agentId);
      return entry === undefined ? undefined : eraSpec(entry, verb);
    },
    verify: (options = {}) => verifyProjectionView(log, view, options),
  };
  return registry;
}

/**
 * The spec of the era of `verb` an agent serves. With `@version`: exactly that era. Without:
 * the era the card's first capability of that name offers (the era a bare name reaches), or
 * the first spec of that name when that capability names no era.
 */
function eraSpec(entry: RegistryEntry, verb: string): VerbSpec | undefined {
  const at = verb.indexOf('@');
  const name = at < 0 ? verb : verb.slice(0, at);
  let version = at < 0 ? undefined : verb.slice(at + 1);
  if (version === undefined) {
    const offered = findCapability(entry.card, name)?.verb;
    const sep = offered?.indexOf('@') ?? -1;
    if (offered !== undefined && sep >= 0) version = offered.slice(sep + 1);
  }
  return entry.verbs.find((v) => v.name === name && (version === undefined || String(v.version) === version));
}

/** Compares agent ids by UTF-16 code units: the deterministic order of every listing. */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** True when `card` with `origin` and `verbs` is what `entry` already holds (its revision aside). */
function sameRegistration(
  entry: RegistryEntry,
  card: AgentCard,
  origin: AgentOrigin,
  verbs: readonly VerbSpec[],
): boolean {
  return (
    canonicalizeJcs({ ...card, origin, revision: 0 }) === canonicalizeJcs({ ...entry.card, revision: 0 }) &&
    canonicalizeJcs(verbs) === canonicalizeJcs(entry.verbs)
  );
}
