/**
 * A projection kept up to date from the log: start from a valid snapshot (or the initial
 * state), catch up from the last applied `seq`, then follow new events as they commit.
 */
import { PlexusError, toPlexusError } from '../core/errors.js';
import { sha256Hex } from '../core/hash.js';
import type { JsonValue } from '../core/json.js';
import { matchesFilter, normalizeFilter } from './event-filter.js';
import type { EventLog, SignalOptions } from './event-log.js';
import {
  applyMatchedEvent,
  checkProjectionName,
  projectionText,
  projectionVersion,
  type Projection,
} from './projection.js';
import type { ProjectionSnapshot, SnapshotStore } from './projection-snapshots.js';
import { liveTapOf, type LiveTapRegister } from './live-tap.js';
import type { Event } from '../core/records/event.js';
import type { EventTypes } from './event-map.js';

/** Options of {@link projectionView}. */
export interface ProjectionViewInit<S> {
  readonly log: EventLog<EventTypes>;
  readonly projection: Projection<S>;
  /** Where to load snapshots from at start and save them to. @default none (always rebuild) */
  readonly snapshots?: SnapshotStore;
  /**
   * Save a snapshot after this many applied events — events the projection's filter lets
   * through (and at `stop()`); 0 saves only at stop.
   * @default 10000
   */
  readonly snapshotEvery?: number;
}

/** A live projection. */
export interface ProjectionView<S> {
  readonly name: string;
  readonly projection: Projection<S>;
  /** Loads a snapshot if valid, catches up to the log's head, then follows. Resolves once caught up. */
  start(options?: SignalOptions): Promise<void>;
  /** Stops following and saves a final snapshot (when a store is set). Safe to call twice. */
  stop(): Promise<void>;
  /** The current state (changes as events arrive; copy what must stay stable). */
  state(): S;
  /** `seq` of the last event seen (applied or skipped by the filter). */
  position(): number;
  /**
   * Resolves when the view has seen `seq` — read-your-writes after an append.
   * @throws PlexusError the reducer's failure; `UNAVAILABLE` when the view stops first;
   *   `CANCELLED` when aborted.
   */
  waitFor(seq: number, options?: SignalOptions): Promise<void>;
  /** A snapshot of the current state (synchronous capture). */
  snapshot(): ProjectionSnapshot;
}

/** Events per storage read while a tapped view catches up. */
const CATCH_UP_PAGE = 1000;

interface Waiter {
  readonly seq: number;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Creates a live projection over a log. The log must be started before `start()`.
 *
 * @example
 * const jobs = projectionView({ log, projection: jobsProjection, snapshots });
 * await jobs.start();
 * const event = await log.append({ type: 'job.submitted', data: { id: 'j1' } });
 * await jobs.waitFor(event.seq);
 */
export function projectionView<S>(init: ProjectionViewInit<S>): ProjectionView<S> {
  const { log, projection, snapshots } = init;
  const name = checkProjectionName(projection.name);
  const version = projectionVersion(projection);
  const filter = normalizeFilter(projection.filter);
  const every = init.snapshotEvery ?? 10_000;
  let state = projection.initial();
  let seq = 0;
  let cid: string | null = null;
  let failure: unknown;
  let following = false;
  let controller: AbortController | undefined;
  let loop: Promise<void> | undefined;
  let saving: Promise<void> = Promise.resolve();
  let sinceSnapshot = 0;
  const waiters = new Set<Waiter>();

  const settle = (): void => {
    for (const w of waiters) {
      if (failure !== undefined) w.reject(failure);
      else if (seq >= w.seq) w.resolve();
      else if (!following)
        w.reject(new PlexusError('UNAVAILABLE', `projection ${name} is not following the log`));
      else continue;
      waiters.delete(w);
    }
  };

  const capture = (): ProjectionSnapshot => {
    const text = projectionText(projection, state);
    return { name, version, seq, cid, sha256: sha256Hex(text), state: JSON.parse(text) as JsonValue };
  };

  const save = (): Promise<void> => {
    if (snapshots === undefined) return Promise.resolve();
    const snap = capture();
    saving = saving.then(() => snapshots.save(snap)).catch(() => undefined);
    return saving;
  };

  const restore = async (signal: AbortSignal | undefined): Promise<void> => {
    state = projection.initial();
    seq = 0;
    cid = null;
    const snap = await snapshots?.load(name).catch(() => undefined);
    if (snap === undefined || snap.version !== version || snap.name !== name || snap.seq < 0) return;
    let candidate: S;
    try {
      const json = JSON.parse(JSON.stringify(snap.state)) as JsonValue;
      candidate = projection.fromJson === undefined ? (json as S) : projection.fromJson(json);
      if (sha256Hex(projectionText(projection, candidate)) !== snap.sha256) return;
    } catch {
      return; // an unusable snapshot is ignored: the log is the truth
    }
    if (snap.seq > 0) {
      const [at] = await log.read({ afterSeq: snap.seq - 1, limit: 1, ...(signal ? { signal } : {}) });
      if (at?.seq !== snap.seq || at.cid !== snap.cid) return;
    }
    state = candidate;
    seq = snap.seq;
    cid = snap.cid;
  };

  const applyOne = (event: Event): void => {
    // Only events the filter lets through count towards the next snapshot: a projection that
    // other events pass by (the registry, the budget ledger) is not re-saved, whole, every
    // `every` events of unrelated traffic (Perf-P5-001).
    const applies = matchesFilter(event, filter);
    if (applies) state = applyMatchedEvent(projection, state, event);
    seq = event.seq;
    cid = event.cid;
    if (!applies) return;
    sinceSnapshot++;
    if (every > 0 && sinceSnapshot >= every) {
      sinceSnapshot = 0;
      void save();
    }
  };

  /**
   * Follows through the log's synchronous live tap: each committed batch is applied inside
   * the log's flush, before the appenders' promises resolve. Live batches arriving while the
   * backlog is read from storage are buffered and applied after it (overlap skipped by seq).
   */
  const followTap = (register: LiveTapRegister, signal: AbortSignal): Promise<void> =>
    new Promise<void>((resolveLoop) => {
      // `backlog` buffers live batches until the catch-up from storage is done.
      const tap: { backlog: Event[] | undefined; ended: boolean } = { backlog: [], ended: false };
      let unregister: (() => void) | undefined;
      const ended = (): boolean => tap.ended; // read through a call: closures change it
      const end = (error?: unknown): void => {
        if (tap.ended) return;
        tap.ended = true;
        if (error !== undefined) failure = error;
        signal.removeEventListener('abort', onAbort);
        unregister?.();
        following = false;
        settle();
        resolveLoop();
      };
      const onAbort = (): void => {
        end();
      };
      const applyAll = (events: readonly Event[]): void => {
        try {
          for (const event of events) if (event.seq > seq) applyOne(event);
        } catch (error) {
          end(error);
          return;
        }
        settle();
      };
      try {
        unregister = register({
          onBatch(events) {
            if (tap.ended) return;
            if (tap.backlog !== undefined) tap.backlog.push(...events);
            else applyAll(events);
          },
          onClose() {
            end();
          },
        });
      } catch (error) {
        end(error);
        return;
      }
      if (signal.aborted) {
        end();
        return;
      }
      signal.addEventListener('abort', onAbort, { once: true });
      void (async () => {
        try {
          for (;;) {
            const page = await log.read({ afterSeq: seq, limit: CATCH_UP_PAGE, signal });
            if (ended()) return;
            applyAll(page);
            if (page.length < CATCH_UP_PAGE) break;
            // Let I/O and timers run between pages: a long catch-up never holds the loop.
            await new Promise<void>((resolve) => setImmediate(resolve));
            if (ended()) return;
          }
        } catch (error) {
          end(signal.aborted ? undefined : error);
          return;
        }
        if (ended()) return;
        const buffered = tap.backlog ?? [];
        tap.backlog = undefined;
        applyAll(buffered);
      })();
    });

  const follow = async (signal: AbortSignal): Promise<void> => {
    try {
      for await (const event of log.subscribe(seq, undefined, { signal })) {
        applyOne(event);
        settle();
      }
    } catch (error) {
      failure = error;
    } finally {
      following = false;
      settle();
    }
  };

  const view: ProjectionView<S> = {
    name,
    projection,
    async start(options: SignalOptions = {}): Promise<void> {
      if (following) return;
      failure = undefined;
      await restore(options.signal);
      const head = await log.head(options);
      controller = new AbortController();
      following = true;
      sinceSnapshot = 0;
      const tap = liveTapOf(log);
      loop = tap === undefined ? follow(controller.signal) : followTap(tap, controller.signal);
      await view.waitFor(head.seq, options);
    },
    async stop(): Promise<void> {
      const running = loop;
      if (running === undefined) return;
      loop = undefined;
      controller?.abort();
      await running;
      if (failure === undefined) await save();
      await saving;
    },
    state: () => state,
    position: () => seq,
    waitFor(target: number, options: SignalOptions = {}): Promise<void> {
      // Fast path: already there (the usual case after an append on a tapped log).
      if (seq >= target && failure === undefined && options.signal?.aborted !== true) {
        return Promise.resolve();
      }
      return new Promise<void>((resolve, reject) => {
        const signal = options.signal;
        if (signal?.aborted === true) {
          reject(new PlexusError('CANCELLED', `waiting for projection ${name} was aborted`));
          return;
        }
        const onAbort = (): void => {
          waiters.delete(waiter);
          reject(new PlexusError('CANCELLED', `waiting for projection ${name} was aborted`));
        };
        const waiter: Waiter = {
          seq: target,
          resolve: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
          reject: (error) => {
            signal?.removeEventListener('abort', onAbort);
            reject(toPlexusError(error));
          },
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        waiters.add(waiter);
        settle();
      });
    },
    snapshot: capture,
  };
  return view;
}
