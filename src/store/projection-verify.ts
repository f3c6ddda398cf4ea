/**
 * Checking a projection against the log (`plexus replay --verify`): rebuild it from scratch
 * up to the position of the state under test and compare the two canonical serialisations
 * byte for byte.
 */
import { toPlexusError } from '../core/errors.js';
import { sha256Hex } from '../core/hash.js';
import type { JsonValue } from '../core/json.js';
import type { EventLog, SignalOptions } from './event-log.js';
import {
  firstDifference,
  projectionText,
  projectionVersion,
  rebuildProjection,
  type Projection,
} from './projection.js';
import type { ProjectionSnapshot } from './projection-snapshots.js';
import type { ProjectionView } from './projection-view.js';
import type { EventTypes } from './event-map.js';

/** The outcome of checking one projection. */
export interface ProjectionCheck {
  readonly name: string;
  /** True when the state under test equals the rebuild. */
  readonly ok: boolean;
  /** Position compared at. */
  readonly seq: number;
  /** SHA-256 of the rebuilt state's canonical text. */
  readonly expected: string;
  /** SHA-256 of the state under test's canonical text. */
  readonly actual: string;
  /** JSON pointer of the first difference, when not ok and both states are readable. */
  readonly difference?: string;
  /** Why it is not ok, in a sentence. */
  readonly reason?: string;
}

/**
 * Compares a state's canonical text (taken at `seq`) with a rebuild up to `seq`.
 *
 * @throws PlexusError from the rebuild (reducer failure, read errors, `CANCELLED`).
 */
export async function verifyProjectionText<S>(
  log: EventLog<EventTypes>,
  projection: Projection<S>,
  seq: number,
  actualText: string,
  options: SignalOptions = {},
): Promise<ProjectionCheck> {
  const rebuilt = await rebuildProjection(log, projection, { untilSeq: seq, ...options });
  const expectedText = projectionText(projection, rebuilt.state);
  const base = {
    name: projection.name,
    seq,
    expected: sha256Hex(expectedText),
    actual: sha256Hex(actualText),
  };
  if (rebuilt.seq !== seq) {
    return {
      ...base,
      ok: false,
      reason: `the log ends at seq ${rebuilt.seq}, before the state's seq ${seq}`,
    };
  }
  if (expectedText === actualText) return { ...base, ok: true };
  const difference = firstDifference(
    JSON.parse(expectedText) as JsonValue,
    JSON.parse(actualText) as JsonValue,
  );
  return {
    ...base,
    ok: false,
    ...(difference === undefined ? {} : { difference }),
    reason: `the state differs from a rebuild from the log${difference === undefined ? '' : ` at ${difference}`}`,
  };
}

/**
 * Checks a live view: captures its state and position now, rebuilds, compares.
 *
 * @throws as {@link verifyProjectionText}.
 */
export function verifyProjectionView<S>(
  log: EventLog<EventTypes>,
  view: ProjectionView<S>,
  options: SignalOptions = {},
): Promise<ProjectionCheck> {
  const seq = view.position();
  const text = projectionText(view.projection, view.state());
  return verifyProjectionText(log, view.projection, seq, text, options);
}

/**
 * Checks a stored snapshot: its own digest, that the log still has the event it names, that
 * it was made by this reducer version, and that its state equals a rebuild.
 *
 * @throws as {@link verifyProjectionText}.
 */
export async function verifyProjectionSnapshot<S>(
  log: EventLog<EventTypes>,
  projection: Projection<S>,
  snapshot: ProjectionSnapshot,
  options: SignalOptions = {},
): Promise<ProjectionCheck> {
  let text: string;
  try {
    text = projectionText(projection, (projection.fromJson?.(snapshot.state) ?? snapshot.state) as S);
  } catch (error) {
    const reason = `snapshot state cannot be read by ${projection.name}: ${toPlexusError(error).message}`;
    return {
      name: snapshot.name,
      ok: false,
      seq: snapshot.seq,
      expected: snapshot.sha256,
      actual: '',
      reason,
    };
  }
  const actual = sha256Hex(text);
  const fail = (reason: string): ProjectionCheck => ({
    name: snapshot.name,
    ok: false,
    seq: snapshot.seq,
    expected: snapshot.sha256,
    actual,
    reason,
  });
  if (snapshot.name !== projection.name)
    return fail(`snapshot is of ${snapshot.name}, not ${projection.name}`);
  if (snapshot.version !== projectionVersion(projection)) {
    return fail(
      `snapshot was made by version ${snapshot.version} of the reducer, not ${projectionVersion(projection)}`,
    );
  }
  if (actual !== snapshot.sha256)
    return fail('snapshot state does not match its own sha256: the file was altered');
  if (snapshot.seq > 0) {
    const [at] = await log.read({ afterSeq: snapshot.seq - 1, limit: 1, ...options });
    if (at?.seq !== snapshot.seq || at.cid !== snapshot.cid) {
      return fail(
        `the log has no event seq ${snapshot.seq} with cid ${String(snapshot.cid)}: the snapshot is of another log`,
      );
    }
  }
  return verifyProjectionText(log, projection, snapshot.seq, text, options);
}
