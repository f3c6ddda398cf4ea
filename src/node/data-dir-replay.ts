/**
 * Reading a node's data directory without running the node (`plexus replay`, `plexus jobs ls
 * --data`): open its event log read-mostly, verify the hash chain, rebuild every projection
 * from scratch and check it against the stored snapshots and the node's own catch-up path.
 */
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { PlexusError } from '../core/errors.js';
import type { JsonValue } from '../core/json.js';
import type { Job } from '../core/records/job.js';
import {
  idempotencyProjection,
  jobsProjection,
  ledgerProjection,
  registryProjection,
  revocationsProjection,
  type JobsState,
} from '../runtime/index.js';
import {
  EVENT_DB_FILE,
  fileSnapshotStore,
  projectionDigest,
  projectionJson,
  projectionView,
  rebuildProjection,
  sqliteEventLog,
  verifyProjectionSnapshot,
  verifyProjectionView,
  type ChainVerification,
  type EventLog,
  type Projection,
  type ProjectionCheck,
  type SnapshotStore,
} from '../store/index.js';

import { answerCacheProjection } from '../runtime/routing/index.js';
import { HYPERSPACE_PROJECTIONS } from './primitive-host.js';
/** The projections a node keeps, in the order replay checks them. */
export const NODE_PROJECTIONS: readonly Projection<unknown>[] = [
  registryProjection,
  jobsProjection,
  idempotencyProjection,
  revocationsProjection,
  ledgerProjection,
  answerCacheProjection,
  ...HYPERSPACE_PROJECTIONS,
];

/**
 * Opens the event log of a data directory (which must already hold one) and passes it to
 * `use`, stopping it afterwards.
 *
 * @throws PlexusError `NOT_FOUND` when the directory has no `events.db`; the log's errors.
 */
export async function withDataDirLog<T>(dataDir: string, use: (log: EventLog) => Promise<T>): Promise<T> {
  const file = join(dataDir, EVENT_DB_FILE);
  try {
    await access(file);
  } catch (cause) {
    throw new PlexusError(
      'NOT_FOUND',
      `no event log at ${file}: is ${dataDir} a node's data directory? (pass --data)`,
      {
        cause,
      },
    );
  }
  const log = sqliteEventLog({ dir: dataDir });
  await log.start();
  try {
    return await use(log);
  } finally {
    await log.stop();
  }
}

/** One comparison of a projection with a rebuild: of its stored snapshot, or of the state a restarted node resumes from. */
export interface ReplayCheck {
  readonly against: 'snapshot' | 'resume';
  readonly check: ProjectionCheck;
}

/** What one projection looked like when replayed. */
export interface ReplayedProjection {
  readonly name: string;
  /** Entries in the rebuilt state (agents, jobs, idempotency keys). */
  readonly entries: number;
  /** SHA-256 of the rebuilt state's canonical text. */
  readonly digest: string;
  /** Comparisons made (with `verify`): the stored snapshot, and the snapshot-plus-catch-up path. */
  readonly checks: readonly ReplayCheck[];
}

/** The outcome of {@link replayLog}. */
export interface ReplayReport {
  /** Events in the log. */
  readonly events: number;
  readonly chain: ChainVerification;
  readonly projections: readonly ReplayedProjection[];
  /** True when the chain is intact, every projection rebuilds, and every check passed. */
  readonly ok: boolean;
  /** The first problem, in a sentence naming the bad event or projection. */
  readonly problem?: string;
}

/** A snapshot store that reads another one and never writes (replay must not change the data). */
function readOnly(store: SnapshotStore): SnapshotStore {
  return {
    load: (name, o) => store.load(name, o),
    save: () => Promise.resolve(),
    list: (o) => store.list(o),
  };
}

/**
 * How many records a state holds: a Map's size; otherwise, from its JSON form, the items of
 * its collections (an array's length, an object's members, summed over the top-level members
 * that are collections).
 */
function sizeOf(projection: Projection<unknown>, state: unknown): number {
  if (state instanceof Map) return state.size;
  if (typeof state === 'object' && state !== null && 'keys' in state && state.keys instanceof Map)
    return state.keys.size;
  const count = (v: JsonValue): number =>
    Array.isArray(v) ? v.length : typeof v === 'object' && v !== null ? Object.keys(v).length : 0;
  const json = projectionJson(projection, state);
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return count(json);
  const members = Object.values(json);
  const collections = members.filter((v) => typeof v === 'object' && v !== null);
  return collections.length === 0 ? members.length : collections.reduce((n, v) => n + count(v), 0);
}

function checkProblem(check: ProjectionCheck, what: string): string {
  return `projection ${check.name}: ${what} at seq ${check.seq} does not match a rebuild from the log${
    check.difference === undefined ? '' : ` (first difference at ${check.difference})`
  }${check.reason === undefined ? '' : `: ${check.reason}`}`;
}

/**
 * Replays a log: verifies the hash chain, rebuilds every node projection from scratch, and
 * with `verify` compares each with its stored snapshot (when there is one) and with the state
 * the node would resume from (snapshot plus catch-up).
 *
 * @throws PlexusError from the log (read errors); a broken chain or a failing projection is
 *   reported in the result, not thrown.
 */
export async function replayLog(
  log: EventLog,
  options: { readonly verify?: boolean; readonly snapshots?: SnapshotStore } = {},
): Promise<ReplayReport> {
  const chain = await log.verifyChain();
  if (!chain.ok) {
    return {
      events: chain.count,
      chain,
      projections: [],
      ok: false,
      problem: `the hash chain breaks at event seq ${chain.seq} (${chain.fault}): ${chain.reason}`,
    };
  }
  const projections: ReplayedProjection[] = [];
  let problem: string | undefined;
  for (const projection of NODE_PROJECTIONS) {
    let rebuilt;
    try {
      rebuilt = await rebuildProjection(log, projection);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { events: chain.count, chain, projections, ok: false, problem: message };
    }
    const checks: ReplayCheck[] = [];
    if (options.verify === true && options.snapshots !== undefined) {
      const stored = await options.snapshots.load(projection.name).catch(() => undefined);
      if (stored !== undefined) {
        const check = await verifyProjectionSnapshot(log, projection, stored);
        checks.push({ against: 'snapshot', check });
        if (!check.ok) problem ??= checkProblem(check, 'the stored snapshot');
      }
      const view = projectionView({
        log,
        projection,
        snapshots: readOnly(options.snapshots),
        snapshotEvery: 0,
      });
      await view.start();
      try {
        const check = await verifyProjectionView(log, view);
        checks.push({ against: 'resume', check });
        if (!check.ok) problem ??= checkProblem(check, 'the state a restarted node resumes from');
      } finally {
        await view.stop();
      }
    }
    projections.push({
      name: projection.name,
      entries: sizeOf(projection, rebuilt.state),
      digest: projectionDigest(projection, rebuilt.state),
      checks,
    });
  }
  return {
    events: chain.count,
    chain,
    projections,
    ok: problem === undefined,
    ...(problem === undefined ? {} : { problem }),
  };
}

/**
 * Replays the log of a data directory (see {@link replayLog}); snapshots are read from
 * `<dataDir>/projections`.
 *
 * @throws PlexusError `NOT_FOUND` when the directory holds no event log.
 */
export function replayDataDir(
  dataDir: string,
  options: { readonly verify?: boolean } = {},
): Promise<ReplayReport> {
  return withDataDirLog(dataDir, (log) =>
    replayLog(log, { ...options, snapshots: fileSnapshotStore({ dir: dataDir }) }),
  );
}

/**
 * Every job recorded in a data directory's log, oldest first (rebuilt from the log).
 *
 * @throws PlexusError `NOT_FOUND` when the directory holds no event log.
 */
export function jobsOfDataDir(dataDir: string): Promise<readonly Job[]> {
  return withDataDirLog(dataDir, async (log) => {
    const { state } = await rebuildProjection<JobsState>(log, jobsProjection);
    return [...state.values()].sort((a, b) => a.firstSeq - b.firstSeq).map((e) => e.job);
  });
}
