/**
 * Jobs as a projection of the log (D8, D9): folding the `job.*` events gives every job's
 * core `Job` record — state, timing (from the events' times), attempts, outputs, error —
 * plus what the runtime needs to answer and recover it.
 */
import type { Envelope } from '../../core/envelope.js';
import { PlexusError } from '../../core/errors.js';
import type { JsonValue } from '../../core/json.js';
import type { Event } from '../../core/records/event.js';
import { compareDateTimes, isDateTime } from '../../core/records/datetime.js';
import { canTransition, isTerminalJobState, type Job, type JobState } from '../../core/records/job.js';
import type { EventLog, SignalOptions } from '../../store/event-log.js';
import { eventOf, type EventOf } from '../../store/event-map.js';
import type { Projection } from '../../store/projection.js';
import type { InvocationMode } from '../context.js';
import { RUNTIME_EVENTS, type JobStartedData, type RouteKind } from '../events.js';

/** One job as the runtime keeps it. */
export interface JobEntry {
  /** The core record. */
  readonly job: Job;
  readonly mode: InvocationMode;
  /** The address the request named. */
  readonly to: string;
  readonly timeoutMs: number;
  /** The scoped idempotency key. */
  readonly key: string;
  readonly face: string;
  readonly principal?: string;
  /** `seq` of `job.submitted`. */
  readonly firstSeq: number;
  /** `seq` of the job's latest event. */
  readonly lastSeq: number;
  /**
   * `seq` of the job's latest status event (`JOB_STATUS_EVENT_TYPES`: not progress, not a
   * retry): the job listing's order key (JL-11). A finished job's is its terminal event's.
   */
  readonly statusSeq: number;
  readonly route?: RouteKind;
  readonly agents?: readonly string[];
  /** The request; kept only while the job is not finished (recovery runs it again). */
  readonly request?: Envelope;
  /**
   * The answers its caller gave to the handler's `requestInput`, in order; kept only while
   * the job is not finished (a resumed or recovered job replays them to its handler).
   */
  readonly inputs?: readonly JsonValue[];
}

/** The jobs state: job id → entry. */
export type JobsState = Map<string, JobEntry>;

/** The name of the jobs projection. */
export const JOBS_PROJECTION_NAME = 'runtime.jobs';

/**
 * How many finished jobs the jobs projection keeps in memory by default: the most recently
 * finished ones. Older finished jobs stay in the log and are read from it on demand
 * (`Runtime.jobs.get`, duplicates inside the idempotency window); unfinished jobs are always kept.
 */
export const DEFAULT_RETAINED_FINISHED_JOBS = 10_000;

/**
 * The order in which a state's jobs finished (ids, oldest first, from `head`), kept beside
 * the state rather than in it so the state stays a plain `Map`. Rebuilt from `lastSeq` when a
 * state comes from a snapshot: a finished job's last event is its terminal one, so `lastSeq`
 * order is finish order.
 */
interface FinishedOrder {
  ids: string[];
  head: number;
}

const FINISHED = new WeakMap<JobsState, FinishedOrder>();

/** The finish order of `state`, built from it on first use (leaving out `except`, finishing now). */
function finishedOrder(state: JobsState, except: string): FinishedOrder {
  let order = FINISHED.get(state);
  if (order === undefined) {
    const done = [...state.values()].filter((e) => e.job.id !== except && isTerminalJobState(e.job.state));
    done.sort((a, b) => a.lastSeq - b.lastSeq);
    order = { ids: done.map((e) => e.job.id), head: 0 };
    FINISHED.set(state, order);
  }
  return order;
}

/** Records that `id` finished, then drops the oldest finished jobs beyond `retain`. */
function retire(state: JobsState, id: string, retain: number): void {
  const order = finishedOrder(state, id);
  order.ids.push(id);
  while (order.ids.length - order.head > retain) {
    const oldest = order.ids[order.head++];
    if (oldest !== undefined) state.delete(oldest);
  }
  if (order.head > 1024 && order.head * 2 > order.ids.length) {
    order.ids = order.ids.slice(order.head);
    order.head = 0;
  }
}

/** One order's index: job ids and the `seq` of their place, ascending. */
interface OrderIndex {
  ids: string[];
  seqs: number[];
}

/** A job's place in one order: the `seq` of the event that set it. */
type OrderKey = (entry: JobEntry) => number;

/**
 * The jobs of a state in the order they were submitted (ascending `firstSeq`), kept beside the
 * state like {@link FINISHED}: the listing's index (OBS-52), so a page is a binary search and a
 * walk backwards instead of a pass over every job and a sort. Built from the state on first
 * use; from then on a job submitted is appended (`firstSeq` only grows: events apply in log
 * order) and a job retired is skipped when met, the array compacted once half of it is gone.
 */
const SUBMITTED = new WeakMap<JobsState, OrderIndex>();

/**
 * The jobs of a state in the order of their latest status event (ascending `statusSeq`), kept
 * beside the state like {@link SUBMITTED}: the status-order listing's index (JL-11). A job is
 * appended at every status event (`statusSeq` only grows: events apply in log order), so the
 * array holds stale places of jobs that moved on; those, and jobs retired, are skipped when met
 * (the place's `seq` is not the job's `statusSeq`), and the array is compacted once half of it
 * is stale.
 */
const STATUS_ORDER = new WeakMap<JobsState, OrderIndex>();

/**
 * The index of `state` in the order of `key`, built from the state on first use; compacted
 * (places whose job is gone or has moved on dropped) once it holds more than twice the jobs.
 */
function orderIndex(state: JobsState, cache: WeakMap<JobsState, OrderIndex>, key: OrderKey): OrderIndex {
  let order = cache.get(state);
  if (order === undefined) {
    const entries = [...state.values()].sort((a, b) => key(a) - key(b));
    order = { ids: entries.map((e) => e.job.id), seqs: entries.map(key) };
    cache.set(state, order);
  } else if (order.ids.length > 1024 && order.ids.length > 2 * state.size) {
    const ids: string[] = [];
    const seqs: number[] = [];
    order.ids.forEach((id, i) => {
      const seq = order?.seqs[i] as number;
      const entry = state.get(id);
      if (entry !== undefined && key(entry) === seq) {
        ids.push(id);
        seqs.push(seq);
      }
    });
    order.ids = ids;
    order.seqs = seqs;
  }
  return order;
}

/** The jobs of `state` whose `key` is below `below`, newest first, skipping stale places. */
function* newestFirst(
  state: JobsState,
  cache: WeakMap<JobsState, OrderIndex>,
  key: OrderKey,
  below: number,
): Generator<JobEntry, void, undefined> {
  const { ids, seqs } = orderIndex(state, cache, key);
  let lo = 0;
  let hi = seqs.length; // the first index whose seq is ≥ below
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((seqs[mid] as number) < below) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo - 1; i >= 0; i--) {
    const entry = state.get(ids[i] as string);
    if (entry !== undefined && key(entry) === seqs[i]) yield entry;
  }
}

const firstSeqOf: OrderKey = (entry) => entry.firstSeq;
const statusSeqOf: OrderKey = (entry) => entry.statusSeq;

/**
 * The jobs of `state` submitted before `below` (`firstSeq < below`), newest first, without
 * looking at any job submitted later.
 */
export function jobsNewestFirst(state: JobsState, below: number): Generator<JobEntry, void, undefined> {
  return newestFirst(state, SUBMITTED, firstSeqOf, below);
}

/** Notes in the status-order index, when built, that job `id` had a status event at `seq`. */
function noteStatus(state: JobsState, id: string, seq: number): void {
  const order = STATUS_ORDER.get(state);
  if (order !== undefined) {
    order.ids.push(id);
    order.seqs.push(seq);
  }
}

/**
 * The jobs of `state` whose latest status event is before `below` (`statusSeq < below`), in
 * descending `statusSeq`, without looking at any job whose status changed later.
 */
export function jobsByStatusNewestFirst(
  state: JobsState,
  below: number,
): Generator<JobEntry, void, undefined> {
  return newestFirst(state, STATUS_ORDER, statusSeqOf, below);
}

/**
 * The smallest `lastSeq` among the finished jobs `state` keeps, or `undefined` when none is
 * finished — from the finish order retention keeps, without a pass over the jobs when there is
 * one.
 */
export function oldestFinishedSeq(state: JobsState): number | undefined {
  const order = FINISHED.get(state);
  if (order !== undefined) {
    for (let i = order.head; i < order.ids.length; i++) {
      const entry = state.get(order.ids[i] as string);
      if (entry !== undefined && isTerminalJobState(entry.job.state)) return entry.lastSeq;
    }
    return undefined;
  }
  let floor: number | undefined;
  for (const entry of state.values()) {
    if (isTerminalJobState(entry.job.state) && (floor === undefined || entry.lastSeq < floor))
      floor = entry.lastSeq;
  }
  return floor;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** `Date#toISOString` output: UTC, milliseconds, fixed width. */
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * The time a job event's data claims (`at`), kept between `lo` and `hi` (the event's own
 * time), so timing stays ordered whatever the clocks say. Without a valid `at`: `hi`.
 */
function claimed(at: unknown, lo: string, hi: string): string {
  if (typeof at === 'string' && ISO_MS.test(at) && ISO_MS.test(lo) && ISO_MS.test(hi)) {
    return at < lo ? lo : at > hi ? hi : at; // same fixed format: text order is time order
  }
  if (!isDateTime(at)) return hi;
  if (compareDateTimes(at, lo) < 0) return lo;
  return compareDateTimes(at, hi) > 0 ? hi : at;
}

function submitted(state: JobsState, event: EventOf<'job.submitted'>): JobsState {
  const d = event.data;
  if (typeof d.id !== 'string' || state.has(d.id)) return state;
  const job: Mutable<Job> = {
    id: d.id,
    verb: d.verb,
    caller: d.caller,
    payloadHash: d.payloadHash,
    state: 'SUBMITTED',
    timing: {
      createdAt: claimed(d.at, d.at ?? event.time, event.time),
      updatedAt: event.time,
      statusAt: event.time,
      deadline: d.deadline,
    },
    artifacts: [],
    attempts: 0,
    correlationId: d.correlationId,
  };
  if (d.idempotencyKey !== undefined) job.idempotencyKey = d.idempotencyKey;
  if (d.tenantId !== undefined) job.tenantId = d.tenantId;
  // events written before requests were kept have no `request`
  const session = (d as { request?: { sessionId?: unknown } }).request?.sessionId;
  if (typeof session === 'string' && session !== '') job.sessionId = session;
  const entry: Mutable<JobEntry> = {
    job,
    mode: d.mode,
    to: d.to,
    timeoutMs: d.timeoutMs,
    key: d.key,
    face: d.face,
    firstSeq: event.seq,
    lastSeq: event.seq,
    statusSeq: event.seq,
    request: d.request,
  };
  if (d.principal !== undefined) entry.principal = d.principal;
  state.set(d.id, entry);
  const order = SUBMITTED.get(state);
  if (order !== undefined) {
    order.ids.push(d.id);
    order.seqs.push(event.seq);
  }
  noteStatus(state, d.id, event.seq);
  return state;
}

/**
 * The entry after a move to `to`: built field by field (no `delete`, no second spread), so
 * entries keep one fast shape; a finished job drops its request.
 */
function moved(
  entry: JobEntry,
  event: Event,
  to: JobState,
  patch: Partial<Mutable<Job>>,
  started?: JobStartedData,
  status = true,
): JobEntry {
  const timing = status
    ? { ...entry.job.timing, updatedAt: event.time, statusAt: event.time }
    : { ...entry.job.timing, updatedAt: event.time };
  if ((to === 'WORKING' || to === 'INPUT_REQUIRED') && timing.startedAt === undefined) {
    timing.startedAt = claimed((event.data as { at?: unknown } | null)?.at, timing.createdAt, event.time);
  }
  const terminal = isTerminalJobState(to);
  if (terminal) timing.finishedAt = event.time;
  const job: Mutable<Job> = { ...entry.job, ...patch, state: to, timing };
  if (to !== 'INPUT_REQUIRED' && job.input !== undefined) delete job.input; // rare: after an answer
  const next: Mutable<JobEntry> = {
    job,
    mode: entry.mode,
    to: entry.to,
    timeoutMs: entry.timeoutMs,
    key: entry.key,
    face: entry.face,
    firstSeq: entry.firstSeq,
    lastSeq: event.seq,
    statusSeq: status ? event.seq : entry.statusSeq,
  };
  if (entry.principal !== undefined) next.principal = entry.principal;
  const route = started === undefined ? entry.route : started.route;
  const agents = started === undefined ? entry.agents : started.agents;
  if (route !== undefined) next.route = route;
  if (agents !== undefined) next.agents = agents;
  if (!terminal && entry.request !== undefined) next.request = entry.request;
  if (!terminal && entry.inputs !== undefined) next.inputs = entry.inputs;
  return next;
}

/**
 * Applies one job event. Events that do not fit (an unknown job, a transition that
 * `JOB_TRANSITIONS` forbids) are skipped, so a rebuild never stops on them. Keeps every job
 * (no retention limit); the projection's `apply` adds the limit.
 */
export function applyJobEvent(state: JobsState, event: Event): JobsState {
  return applyWithRetention(state, event, Infinity);
}

function applyWithRetention(state: JobsState, event: Event, retain: number): JobsState {
  const submittedEvent = eventOf(event, RUNTIME_EVENTS.jobSubmitted);
  if (submittedEvent !== undefined) return submitted(state, submittedEvent);
  const id = (event.data as { id?: unknown } | null)?.id;
  if (typeof id !== 'string') return state;
  const entry = state.get(id);
  if (entry === undefined) return state;
  const from = entry.job.state;
  const go = (to: JobState, patch: Partial<Mutable<Job>>, started?: JobStartedData): JobsState => {
    if (!canTransition(from, to)) return state;
    state.set(id, moved(entry, event, to, patch, started));
    noteStatus(state, id, event.seq);
    if (retain !== Infinity && isTerminalJobState(to)) retire(state, id, retain);
    return state;
  };
  switch (event.type) {
    case RUNTIME_EVENTS.jobStarted:
      return go(
        'WORKING',
        { attempts: entry.job.attempts + 1 },
        eventOf(event, RUNTIME_EVENTS.jobStarted)?.data,
      );
    case RUNTIME_EVENTS.jobRetried: {
      if (from !== 'WORKING') return state;
      const d = eventOf(event, RUNTIME_EVENTS.jobRetried)?.data;
      // not a status event: the job stays WORKING (JOB_STATUS_EVENT_TYPES)
      state.set(id, moved(entry, event, 'WORKING', { attempts: entry.job.attempts + 1 }, d, false));
      return state;
    }
    case RUNTIME_EVENTS.jobProgress: {
      if (isTerminalJobState(from)) return state;
      state.set(id, {
        ...entry,
        job: { ...entry.job, timing: { ...entry.job.timing, updatedAt: event.time } },
        lastSeq: event.seq,
      });
      return state;
    }
    case RUNTIME_EVENTS.jobInputRequired: {
      const d = eventOf(event, RUNTIME_EVENTS.jobInputRequired)?.data;
      if (d === undefined || typeof d.prompt !== 'string') return state;
      return go('INPUT_REQUIRED', {
        input: d.schema === undefined ? { prompt: d.prompt } : { prompt: d.prompt, schema: d.schema },
      });
    }
    case RUNTIME_EVENTS.jobInputProvided: {
      const d = eventOf(event, RUNTIME_EVENTS.jobInputProvided)?.data;
      if (d === undefined || from !== 'INPUT_REQUIRED') return state;
      const next = moved(entry, event, 'WORKING', {});
      state.set(id, { ...next, inputs: [...(entry.inputs ?? []), d.input ?? null] });
      noteStatus(state, id, event.seq);
      return state;
    }
    case RUNTIME_EVENTS.jobCompleted: {
      const completed = eventOf(event, RUNTIME_EVENTS.jobCompleted);
      return completed === undefined ? state : go('COMPLETED', { outputs: completed.data.outputs });
    }
    case RUNTIME_EVENTS.jobFailed:
    case RUNTIME_EVENTS.jobCanceled:
    case RUNTIME_EVENTS.jobRejected: {
      const ended = eventOf(event, event.type);
      return ended === undefined ? state : go(ENDED[event.type], { error: ended.data.error });
    }
    default:
      return state;
  }
}

/** The state each failure-carrying job event ends a job in. */
const ENDED = {
  [RUNTIME_EVENTS.jobFailed]: 'FAILED',
  [RUNTIME_EVENTS.jobCanceled]: 'CANCELED',
  [RUNTIME_EVENTS.jobRejected]: 'REJECTED',
} as const satisfies Record<string, JobState>;

/** Options of {@link jobsProjectionWith}. */
export interface JobsProjectionInit {
  /**
   * Finished jobs kept in the state: the most recently finished ones (finish order is the
   * order of their terminal events, so every rebuild keeps the same ones). `Infinity` keeps
   * every job.
   * @default DEFAULT_RETAINED_FINISHED_JOBS (10000)
   */
  readonly retainFinishedJobs?: number;
}

/**
 * The jobs projection with a retention limit for finished jobs.
 *
 * @throws PlexusError `INVALID_PARAMS` unless `retainFinishedJobs` is a whole number ≥ 1 or `Infinity`.
 */
export function jobsProjectionWith(init: JobsProjectionInit = {}): Projection<JobsState> {
  const retain = init.retainFinishedJobs ?? DEFAULT_RETAINED_FINISHED_JOBS;
  if (retain !== Infinity && (!Number.isSafeInteger(retain) || retain < 1)) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `retainFinishedJobs must be a whole number ≥ 1 (or Infinity), got ${String(retain)}`,
    );
  }
  return {
    name: JOBS_PROJECTION_NAME,
    // Version 2: finished jobs beyond the limit are dropped (version 1 kept all of them).
    // Version 3: INPUT_REQUIRED jobs (`job.input_required` / `job.input_provided`, `inputs`).
    // Version 4: `statusSeq` and `timing.statusAt` (the latest status event, JL-11).
    version: 4,
    filter: { typePrefix: 'job.' },
    initial: () => new Map(),
    apply: (state, event) => applyWithRetention(state, event, retain),
    toJson(state) {
      return { jobs: Object.fromEntries([...state].map(([id, e]) => [id, e as unknown as JsonValue])) };
    },
    fromJson(json) {
      const jobs = (json as { jobs?: Record<string, JobEntry> } | null)?.jobs ?? {};
      return new Map(Object.entries(jobs));
    },
  };
}

/**
 * The jobs projection: every unfinished job and the {@link DEFAULT_RETAINED_FINISHED_JOBS}
 * most recently finished ones.
 */
export const jobsProjection: Projection<JobsState> = jobsProjectionWith();

/** Events per read while a job is rebuilt from the log. */
const JOB_READ_PAGE = 1000;

/**
 * Rebuilds one job's entry from its own events in the log (found by their causation, the job
 * id): how a finished job the projection no longer keeps is read. `undefined` when the log has
 * no such job.
 *
 * @throws PlexusError from the log's reads.
 */
export async function jobEntryFromLog(
  log: EventLog,
  id: string,
  options: SignalOptions = {},
): Promise<JobEntry | undefined> {
  const state: JobsState = new Map();
  let after = 0;
  for (;;) {
    const events = await log.read({
      afterSeq: after,
      causation: id,
      typePrefix: 'job.',
      limit: JOB_READ_PAGE,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    for (const event of events) applyJobEvent(state, event);
    const last = events[events.length - 1];
    if (last === undefined || events.length < JOB_READ_PAGE) break;
    after = last.seq;
  }
  return state.get(id);
}
