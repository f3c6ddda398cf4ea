/**
 * The shared engine of every event log: lifecycle, sequencing and hashing, group commit,
 * reads, subscriptions and chain verification, over a storage {@link EventLogBackend}.
 *
 * Group commit: `append` checks its input at once, then queues it. The first append into an
 * idle log schedules a flush on `setImmediate`, so every append made in the same turn of the
 * event loop joins that batch; appends arriving while a commit is in flight wait and form
 * the next batch. On a backend that seals and commits off this thread, a queue that reaches
 * {@link EAGER_BATCH_EVENTS} events is handed over at once, so the two threads overlap. A batch is sealed (seq, prev, cid, time), committed in one backend
 * transaction, and only then are its callers' promises resolved and subscribers fed.
 * Live projection views get each committed batch synchronously through the log's tap
 * (`live-tap.ts`) before the callers' promises resolve; the backend receives the canonical
 * data texts along with the events, so nothing is serialised twice.
 */
import { PlexusError, toPlexusError } from '../core/errors.js';
import { startable } from '../core/startable.js';
import type { Event } from '../core/records/event.js';
import type { EventLogBackend } from './event-log-backend.js';
import { isDamagedRow } from './event-log-backend.js';
import { checkLink, eventOf, GENESIS_PREV, sealEvent } from './event-chain.js';
import { normalizeRead } from './event-filter.js';
import { checkEventInputs, type CheckedInput } from './event-input.js';
import type {
  ChainVerification,
  EventFilter,
  EventInput,
  EventLog,
  EventLogHead,
  ReadOptions,
  SignalOptions,
  SubscribeOptions,
} from './event-log.js';
import type { AnyEvents, EventMap, EventTypes } from './event-map.js';
import { attachLiveTap, type LiveTap } from './live-tap.js';
import { closeSubscriber, deliver, notRunning, subscribeEvents, type Subscriber } from './subscription.js';

/** Options shared by every event log factory. */
export interface EventLogInit {
  /**
   * The clock stamping `time`, in Unix milliseconds. All events of one batch share one time.
   * @default Date.now
   */
  readonly now?: () => number;
  /**
   * Most events per commit; a single append larger than this still commits alone, whole.
   * @default 2000
   */
  readonly maxBatch?: number;
  /**
   * Events per page when subscriptions and `verifyChain` read storage.
   * @default 1000
   */
  readonly pageSize?: number;
  /**
   * Buffered live events per subscriber before it falls back to re-reading storage.
   * @default 10000
   */
  readonly subscriberHighWater?: number;
}

interface Pending {
  readonly inputs: readonly CheckedInput[];
  readonly resolve: (events: readonly Event[]) => void;
  readonly reject: (error: unknown) => void;
  readonly signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/** Most batches handed to a backend's `sealAndCommit` at once (one committing, the rest waiting). */
const MAX_IN_FLIGHT = 4;

/**
 * On the `sealAndCommit` path, queued events that are handed over at once, without waiting for
 * the end of the event loop's turn (Perf-P4-001): the writer thread commits them while this
 * thread goes on with the turn's other work, instead of the two threads taking turns.
 */
const EAGER_BATCH_EVENTS = 64;

function cancelled(signal: AbortSignal): PlexusError {
  return new PlexusError('CANCELLED', 'the event log call was aborted', { cause: signal.reason });
}

function commitFailed(description: string, error: unknown): PlexusError {
  if (error instanceof PlexusError) return error;
  return new PlexusError('UNAVAILABLE', `${description}: commit failed: ${toPlexusError(error).message}`, {
    cause: error,
  });
}

/** Builds an {@link EventLog} over `backend`. Used by the backend factories. */
export function createEventLog<M extends EventTypes = EventMap>(
  backend: EventLogBackend,
  init: EventLogInit = {},
): EventLog<M> {
  const now = init.now ?? Date.now;
  const maxBatch = init.maxBatch ?? 2000;
  const tuning = { pageSize: init.pageSize ?? 1000, highWater: init.subscriberHighWater ?? 10_000 };
  let head: EventLogHead = { seq: 0, cid: GENESIS_PREV };
  let queue: Pending[] = [];
  /** Events in `queue`. */
  let queuedEvents = 0;
  let flushing = false;
  let scheduled = false;
  let drained: (() => void) | undefined;
  /** Pipelined path: batches with the backend, the next seq to hand out, and whether to renumber. */
  let inFlight = 0;
  let nextSeq = 1;
  let resync = false;
  /** The backend's own sealing, when it offers it (see {@link pump}). */
  const sealing = backend.sealAndCommit?.bind(backend);
  const subscribers = new Set<Subscriber>();
  const taps = new Set<LiveTap>();

  /** Appends need a running log; reads also work while a stop drains the queue. */
  const ensureRunning = (forRead = false): void => {
    if (life.state !== 'running' && !(forRead && life.state === 'stopping')) {
      throw new PlexusError(
        'UNAVAILABLE',
        life.state === 'stopping'
          ? `${backend.description} is stopping; no more appends are accepted`
          : `${backend.description} is not running; call start() first`,
        { retryable: false },
      );
    }
  };

  const takeBatch = (): Pending[] => {
    let count = 0;
    let n = 0;
    while (n < queue.length) {
      const size = queue[n]?.inputs.length ?? 0;
      if (n > 0 && count + size > maxBatch) break;
      count += size;
      n++;
    }
    const batch = queue.slice(0, n);
    queue = queue.slice(n);
    queuedEvents -= count;
    return batch;
  };

  /** Makes the committed batch visible: head, live taps, subscribers, then the appenders. */
  const publish = (batch: readonly Pending[], sealed: readonly Event[][], all: readonly Event[]): void => {
    const last = all[all.length - 1];
    if (last !== undefined) head = { seq: last.seq, cid: last.cid };
    for (const t of taps) {
      try {
        t.onBatch(all);
      } catch {
        // a tap must not throw; the log keeps going
      }
    }
    for (const s of subscribers) deliver(s, all, tuning.highWater);
    batch.forEach((p, i) => {
      p.resolve(sealed[i] ?? []);
    });
  };

  const detach = (batch: readonly Pending[]): void => {
    for (const p of batch) if (p.onAbort !== undefined) p.signal?.removeEventListener('abort', p.onAbort);
  };

  /** The backend's `commit` path: seal here, store, publish; one batch at a time. */
  const flush = async (): Promise<void> => {
    scheduled = false;
    flushing = true;
    try {
      while (queue.length > 0) {
        const batch = takeBatch();
        detach(batch);
        const time = new Date(now()).toISOString();
        const sealed: Event[][] = [];
        const all: Event[] = [];
        const texts: string[] = [];
        let seq = head.seq;
        let prev = head.cid;
        for (const p of batch) {
          const events: Event[] = [];
          for (const input of p.inputs) {
            const event = sealEvent(input, ++seq, prev, time);
            prev = event.cid;
            events.push(event);
            all.push(event);
            texts.push(input.dataText);
          }
          sealed.push(events);
        }
        try {
          const committing = backend.commit(all, texts);
          if (committing !== undefined) await committing;
        } catch (error) {
          const failure = commitFailed(backend.description, error);
          for (const p of batch) p.reject(failure);
          continue;
        }
        publish(batch, sealed, all);
      }
    } finally {
      flushing = false;
      drained?.();
    }
  };

  /** Builds the events of a batch sealed by the backend and publishes them. */
  const publishSealed = (batch: readonly Pending[], cids: readonly string[], time: string): void => {
    const sealed: Event[][] = [];
    const all: Event[] = [];
    let seq = head.seq;
    let prev = head.cid;
    let i = 0;
    for (const p of batch) {
      const events: Event[] = [];
      for (const input of p.inputs) {
        const cid = cids[i++] as string;
        const event = eventOf(input, ++seq, cid, prev, time);
        prev = cid;
        events.push(event);
        all.push(event);
      }
      sealed.push(events);
    }
    publish(batch, sealed, all);
  };

  /**
   * The backend's `sealAndCommit` path (Perf-P3-001), pipelined: up to {@link MAX_IN_FLIGHT}
   * batches are with the backend at once (it commits them in order), so the next batch forms
   * and is handed over while the previous one commits. Batches are published in seq order. When
   * one fails, the ones after it fail too (their seqs assumed it), and numbering restarts from
   * the head once none is in flight.
   */
  const pump = (sealAndCommit: NonNullable<EventLogBackend['sealAndCommit']>): void => {
    scheduled = false;
    if (resync) {
      if (inFlight > 0) return; // the last one to settle schedules the next pump
      resync = false;
      nextSeq = head.seq + 1;
    }
    if (queue.length === 0) {
      drained?.();
      return;
    }
    while (queue.length > 0 && inFlight < MAX_IN_FLIGHT) {
      const batch = takeBatch();
      detach(batch);
      const inputs: CheckedInput[] = [];
      for (const p of batch) for (const input of p.inputs) inputs.push(input);
      const firstSeq = nextSeq;
      nextSeq += inputs.length;
      const time = new Date(now()).toISOString();
      inFlight++;
      const settled = (): void => {
        inFlight--;
        if ((queue.length > 0 || resync) && !scheduled) {
          scheduled = true;
          setImmediate(kick);
        }
        drained?.();
      };
      sealAndCommit({ inputs, firstSeq, time }).then(
        (cids) => {
          if (resync || firstSeq !== head.seq + 1 || cids.length !== inputs.length) {
            const failure = new PlexusError(
              'UNAVAILABLE',
              `${backend.description}: an earlier commit failed, so this one was not made; retry`,
            );
            for (const p of batch) p.reject(failure);
            resync = true;
          } else publishSealed(batch, cids, time);
          settled();
        },
        (error: unknown) => {
          const failure = commitFailed(backend.description, error);
          for (const p of batch) p.reject(failure);
          resync = true;
          settled();
        },
      );
    }
  };

  /** Starts committing what is queued, on whichever path the backend offers. */
  const kick = (): void => {
    if (sealing === undefined) void flush();
    else pump(sealing);
  };

  const enqueue = (
    inputs: readonly CheckedInput[],
    signal: AbortSignal | undefined,
  ): Promise<readonly Event[]> =>
    new Promise<readonly Event[]>((resolve, reject) => {
      const pending: Pending = { inputs, resolve, reject, signal, onAbort: undefined };
      if (signal !== undefined) {
        pending.onAbort = () => {
          const i = queue.indexOf(pending);
          if (i >= 0) {
            queue.splice(i, 1);
            queuedEvents -= pending.inputs.length;
            reject(cancelled(signal));
          }
        };
        signal.addEventListener('abort', pending.onAbort, { once: true });
      }
      queue.push(pending);
      queuedEvents += inputs.length;
      if (
        sealing !== undefined &&
        queuedEvents >= EAGER_BATCH_EVENTS &&
        inFlight < MAX_IN_FLIGHT &&
        !resync
      ) {
        pump(sealing); // hand a full batch over now; the rest of the turn joins the next one
        return;
      }
      if (!flushing && !scheduled) {
        scheduled = true;
        setImmediate(kick);
      }
    });

  const waitDrained = async (): Promise<void> => {
    while (flushing || scheduled || queue.length > 0 || inFlight > 0) {
      await new Promise<void>((resolve) => {
        drained = resolve;
        if (!flushing && !scheduled) kick();
      });
      drained = undefined;
    }
  };

  const readEvents = async (options: ReadOptions | undefined): Promise<readonly Event[]> => {
    if (options?.signal?.aborted === true) throw cancelled(options.signal);
    const query = normalizeRead(options);
    ensureRunning(true);
    return backend.read(query);
  };

  const life = startable({
    async start(): Promise<void> {
      try {
        head = await backend.open();
        nextSeq = head.seq + 1;
        resync = false;
      } catch (error) {
        throw error instanceof PlexusError
          ? error
          : new PlexusError(
              'UNAVAILABLE',
              `${backend.description}: cannot open: ${toPlexusError(error).message}`,
              {
                cause: error,
              },
            );
      }
    },
    async stop(): Promise<void> {
      await waitDrained();
      for (const s of subscribers) closeSubscriber(s);
      subscribers.clear();
      const closing = [...taps];
      taps.clear();
      for (const t of closing) t.onClose();
      await backend.close();
    },
  });

  const log: EventLog<M> = {
    start: () => life.start(),

    stop: () => life.stop(),

    append: ((
      input: EventInput<AnyEvents> | readonly EventInput<AnyEvents>[],
      options: SignalOptions = {},
    ) => {
      try {
        if (options.signal?.aborted === true) throw cancelled(options.signal);
        const inputs = checkEventInputs(input);
        ensureRunning();
        const result = enqueue(inputs, options.signal);
        return Array.isArray(input) ? result : result.then((events) => events[0]);
      } catch (error) {
        return Promise.reject(toPlexusError(error));
      }
    }) as EventLog<M>['append'],

    read: readEvents,

    subscribe(afterSeq: number, filter?: EventFilter, options: SubscribeOptions = {}): AsyncIterable<Event> {
      return subscribeEvents(
        {
          register(subscriber) {
            if (life.state !== 'running') throw notRunning(backend.description);
            subscribers.add(subscriber);
            return () => subscribers.delete(subscriber);
          },
          read: async (query, signal) => {
            if (signal?.aborted === true) throw cancelled(signal);
            ensureRunning(true);
            return backend.read(query);
          },
        },
        afterSeq,
        filter,
        options.signal,
        tuning,
      );
    },

    head(options: SignalOptions = {}): Promise<EventLogHead> {
      if (options.signal?.aborted === true) return Promise.reject(cancelled(options.signal));
      try {
        ensureRunning();
      } catch (error) {
        return Promise.reject(toPlexusError(error));
      }
      return Promise.resolve(head);
    },

    async verifyChain(options: SignalOptions = {}): Promise<ChainVerification> {
      ensureRunning();
      let expectedPrev: string | null = GENESIS_PREV;
      let count = 0;
      for (;;) {
        if (options.signal?.aborted === true) throw cancelled(options.signal);
        const rows = await backend.scan(count, tuning.pageSize);
        for (const row of rows) {
          const seq = count + 1;
          if (isDamagedRow(row)) {
            return { ok: false, count, seq: row.seq, fault: 'malformed', reason: row.damaged };
          }
          const fault = checkLink(row, seq, expectedPrev);
          if (fault !== undefined) return { ok: false, count, seq: row.seq, ...fault };
          expectedPrev = row.cid;
          count = seq;
        }
        if (rows.length < tuning.pageSize) break;
        await new Promise<void>((resolve) => setImmediate(resolve));
        ensureRunning();
      }
      return { ok: true, count, head: { seq: count, cid: expectedPrev } };
    },
  };
  return attachLiveTap(log, (tap) => {
    if (life.state !== 'running') throw notRunning(backend.description);
    taps.add(tap);
    return () => {
      taps.delete(tap);
    };
  });
}
