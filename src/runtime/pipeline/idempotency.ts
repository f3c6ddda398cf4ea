/**
 * Idempotency (D5): the key of a request, and the projection of the log that remembers
 * which job answered each key and until when.
 *
 * - The key is the caller's explicit key (context `idempotencyKey`, or the ESRP
 *   `_x_esrp_idempotency_key` extension), else the payload hash: the face's (ESRP
 *   `payload_hash`) or, for faces without one, SHA-256 of the RFC 8785 text of
 *   `{to, verb, data}`.
 * - Keys are scoped by tenant: `<tenant>|<key>` (no tenant: `|<key>`).
 * - A key answers duplicates for `max(window, timeout)` ms from submission. A job that ends
 *   CANCELED, or FAILED with a retryable error, releases its key: a retry runs again.
 * - Memory is bounded (A2A-23): the projection keeps the most recent keys (10,000 by default;
 *   a live job's key always stays); an older key still inside its window is found through the
 *   log's index of `job.submitted` by key (`rememberedInLog`), which `evictedUntil` says is
 *   needed.
 */
import { canonicalizeJcs } from '../../core/canonical/jcs.js';
import type { Envelope } from '../../core/envelope.js';
import { PlexusError } from '../../core/errors.js';
import { isSha256Hex, sha256Hex } from '../../core/hash.js';
import type { Event } from '../../core/records/event.js';
import { eventOf } from '../../store/event-map.js';
import type { EventLog, SignalOptions } from '../../store/event-log.js';
import type { Projection } from '../../store/projection.js';
import { ESRP_EXTENSIONS } from '../../wire/esrp/extensions.js';
import type { InvocationContext } from '../context.js';
import { RUNTIME_EVENTS, type JobErrorData } from '../events.js';

/** The idempotency identity of one request. */
export interface IdempotencyIdentity {
  /** SHA-256 hex of the payload (the face's payload hash, or of `{to, verb, data}`). */
  readonly payloadHash: string;
  /** The key as the caller gave it, when explicit. */
  readonly explicitKey?: string;
  /** The scoped key: `<tenant>|<key>`. */
  readonly key: string;
}

/** The longest explicit idempotency key accepted, in characters. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 256;

/**
 * Computes the idempotency identity of a request.
 *
 * @throws PlexusError `INVALID_PARAMS` when the context's payload hash is not 64 lower-case
 *   hex or an explicit key is empty or longer than 256 characters.
 */
export function idempotencyIdentity(envelope: Envelope, context: InvocationContext): IdempotencyIdentity {
  let payloadHash = context.payloadHash;
  if (payloadHash !== undefined && !isSha256Hex(payloadHash)) {
    throw new PlexusError(
      'INVALID_PARAMS',
      'the payload hash must be 64 lower-case hex characters (SHA-256)',
      {
        details: { pointer: '/payload_hash' },
      },
    );
  }
  payloadHash ??= sha256Hex(canonicalizeJcs({ data: envelope.data, to: envelope.to, verb: envelope.verb }));
  const fromExtension = envelope.extensions?.[ESRP_EXTENSIONS.idempotencyKey];
  const explicitKey =
    context.idempotencyKey ?? (typeof fromExtension === 'string' ? fromExtension : undefined);
  if (
    explicitKey !== undefined &&
    (explicitKey.length === 0 || explicitKey.length > MAX_IDEMPOTENCY_KEY_LENGTH)
  ) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `an idempotency key must have 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`,
      { details: { pointer: '/idempotency_key' } },
    );
  }
  const window = context.idempotencyWindowMs;
  if (window !== undefined && (!Number.isSafeInteger(window) || window < 0)) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `the idempotency window must be a whole number of milliseconds ≥ 0, got ${String(window)}`,
      { details: { pointer: '/idempotency_window_ms' } },
    );
  }
  const key = `${envelope.tenantId ?? ''}|${explicitKey ?? payloadHash}`;
  return explicitKey === undefined ? { payloadHash, key } : { payloadHash, explicitKey, key };
}

/** What the idempotency projection remembers about one key. */
export interface IdempotencyEntry {
  /** The job that answers the key. */
  readonly jobId: string;
  /** The payload hash of that job (a reused key with another payload is a conflict). */
  readonly payloadHash: string;
  /** Unix ms after which the key no longer answers. */
  readonly expiresAt: number;
}

/** The idempotency state: scoped key → entry, and live job id → scoped key. */
export interface IdempotencyState {
  readonly keys: Map<string, IdempotencyEntry>;
  readonly live: Map<string, string>;
  /**
   * The latest `expiresAt` of a key dropped to bound the state while still inside its window
   * (0: none): until then, a key not in `keys` may still answer, and is looked up in the log.
   */
  evictedUntil: number;
}

/** Keys the idempotency projection keeps in memory by default (A2A-23). */
export const DEFAULT_RETAINED_IDEMPOTENCY_KEYS = 10_000;

/** The name of the idempotency projection. */
export const IDEMPOTENCY_PROJECTION_NAME = 'runtime.idempotency';

/** True when a job that ended this way frees its key for a retry (cancelled, or a retryable failure). */
export function releasesKey(event: Event): boolean {
  if (event.type === RUNTIME_EVENTS.jobCanceled) return true;
  // a failure's data may lack `error` in an old or foreign log: then the key stays taken
  const failed: Partial<JobErrorData> | undefined = eventOf(event, RUNTIME_EVENTS.jobFailed)?.data;
  return failed?.error?.retryable === true;
}

/** Drops expired keys from the front (insertion order), judged by the event's time. */
function prune(state: IdempotencyState, now: number): void {
  for (const [key, entry] of state.keys) {
    if (entry.expiresAt > now) return;
    if (state.live.get(entry.jobId) === key) return; // a live job keeps its key
    state.keys.delete(key);
  }
}

/**
 * Drops the oldest keys beyond `retain` (a live job's key is moved to the end instead), noting
 * the latest expiry dropped. Bounded: each key is looked at most once.
 */
function evict(state: IdempotencyState, retain: number): void {
  let budget = state.keys.size;
  while (state.keys.size > retain && budget-- > 0) {
    const first = state.keys.entries().next();
    if (first.done === true) return;
    const [key, entry] = first.value;
    state.keys.delete(key);
    if (state.live.get(entry.jobId) === key) {
      state.keys.set(key, entry); // a running job keeps its key in memory
      continue;
    }
    if (entry.expiresAt > state.evictedUntil) state.evictedUntil = entry.expiresAt;
  }
}

/** Applies one job event to the idempotency state (deterministic: it uses the event's time). */
export function applyIdempotencyEvent(
  state: IdempotencyState,
  event: Event,
  retain: number = DEFAULT_RETAINED_IDEMPOTENCY_KEYS,
): IdempotencyState {
  const submitted = eventOf(event, RUNTIME_EVENTS.jobSubmitted);
  if (submitted !== undefined) {
    const time = Date.parse(event.time);
    const d = submitted.data;
    if (typeof d.key !== 'string' || typeof d.id !== 'string') return state;
    prune(state, time);
    state.keys.delete(d.key); // re-insert at the end: insertion order ≈ expiry order
    state.keys.set(d.key, { jobId: d.id, payloadHash: d.payloadHash, expiresAt: time + d.windowMs });
    state.live.set(d.id, d.key);
    if (state.keys.size > retain) evict(state, retain);
    return state;
  }
  const id = (event.data as { id?: unknown } | null)?.id;
  if (typeof id !== 'string') return state;
  const key = state.live.get(id);
  if (key === undefined) return state;
  const terminal =
    event.type === RUNTIME_EVENTS.jobCompleted ||
    event.type === RUNTIME_EVENTS.jobFailed ||
    event.type === RUNTIME_EVENTS.jobCanceled ||
    event.type === RUNTIME_EVENTS.jobRejected;
  if (!terminal) return state;
  state.live.delete(id);
  if (releasesKey(event) && state.keys.get(key)?.jobId === id) state.keys.delete(key);
  return state;
}

/** Options of {@link idempotencyProjectionWith}. */
export interface IdempotencyProjectionInit {
  /**
   * Keys kept in memory, the most recently submitted (a live job's key always stays); older
   * ones inside their window are looked up in the log. `Infinity` keeps every key.
   * @default DEFAULT_RETAINED_IDEMPOTENCY_KEYS (10000)
   */
  readonly retainKeys?: number;
}

/**
 * The idempotency projection with a bound on the keys it keeps in memory (A2A-23).
 *
 * @throws PlexusError `INVALID_PARAMS` unless `retainKeys` is a whole number ≥ 1 or `Infinity`.
 */
export function idempotencyProjectionWith(
  init: IdempotencyProjectionInit = {},
): Projection<IdempotencyState> {
  const retain = init.retainKeys ?? DEFAULT_RETAINED_IDEMPOTENCY_KEYS;
  if (retain !== Infinity && (!Number.isSafeInteger(retain) || retain < 1)) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `retainIdempotencyKeys must be a whole number ≥ 1 (or Infinity), got ${String(retain)}`,
    );
  }
  return {
    name: IDEMPOTENCY_PROJECTION_NAME,
    // Version 2: at most `retainKeys` keys, `evictedUntil` (version 1 kept every key in its window).
    version: 2,
    filter: {
      type: [
        RUNTIME_EVENTS.jobSubmitted,
        RUNTIME_EVENTS.jobCompleted,
        RUNTIME_EVENTS.jobFailed,
        RUNTIME_EVENTS.jobCanceled,
        RUNTIME_EVENTS.jobRejected,
      ],
    },
    initial: () => ({ keys: new Map(), live: new Map(), evictedUntil: 0 }),
    apply: (state, event) => applyIdempotencyEvent(state, event, retain),
    toJson(state) {
      // Keys as a list, so their insertion order (which pruning follows) survives snapshots.
      return {
        evictedUntil: state.evictedUntil,
        keys: [...state.keys].map(([k, e]) => [
          k,
          { jobId: e.jobId, payloadHash: e.payloadHash, expiresAt: e.expiresAt },
        ]),
        live: Object.fromEntries(state.live),
      };
    },
    fromJson(json) {
      const j = json as {
        keys?: [string, IdempotencyEntry][];
        live?: Record<string, string>;
        evictedUntil?: number;
      } | null;
      return {
        keys: new Map(j?.keys ?? []),
        live: new Map(Object.entries(j?.live ?? {})),
        evictedUntil: typeof j?.evictedUntil === 'number' ? j.evictedUntil : 0,
      };
    },
  };
}

/** The idempotency projection, keeping {@link DEFAULT_RETAINED_IDEMPOTENCY_KEYS} keys in memory. */
export const idempotencyProjection: Projection<IdempotencyState> = idempotencyProjectionWith();

/** Matches per read while a key is looked up in the log. */
const KEY_READ_PAGE = 100;

/**
 * What the log remembers about scoped key `key`: its latest `job.submitted` (read through the
 * store's index of `job.submitted` by data key), or `undefined` when no job used it. Whether that
 * job released the key (cancelled, retryable failure) is the caller's to check on the job.
 *
 * @throws PlexusError from the log's reads.
 */
export async function rememberedInLog(
  log: EventLog,
  key: string,
  options: SignalOptions = {},
): Promise<IdempotencyEntry | undefined> {
  let found: IdempotencyEntry | undefined;
  let afterSeq = 0;
  for (;;) {
    const events = await log.read({
      type: RUNTIME_EVENTS.jobSubmitted,
      key,
      afterSeq,
      limit: KEY_READ_PAGE,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    for (const event of events) {
      const d = eventOf(event, RUNTIME_EVENTS.jobSubmitted)?.data;
      if (d === undefined || typeof d.id !== 'string' || d.key !== key) continue;
      found = { jobId: d.id, payloadHash: d.payloadHash, expiresAt: Date.parse(event.time) + d.windowMs };
    }
    const last = events.at(-1);
    if (last === undefined || events.length < KEY_READ_PAGE) return found;
    afterSeq = last.seq;
  }
}
