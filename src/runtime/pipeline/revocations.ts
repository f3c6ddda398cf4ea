/**
 * UCAN revocations as events (DESIGN D7, D9): a revocation is the event `ucan.revoked` with
 * the revoked token's CID, the revoker and its signed challenge (UCAN 0.10 §6.6). The
 * projection of those events answers the chain verifier's question "was this link revoked
 * by an issuer of its own chain?" — a revocation by anyone else has no effect, as the spec
 * requires. Revocations are irreversible.
 */
import { PlexusError } from '../../core/errors.js';
import type { EventLog, SignalOptions } from '../../store/event-log.js';
import { eventHandlers, type EventType } from '../../store/event-map.js';
import type { Projection } from '../../store/projection.js';
import { projectionView, type ProjectionView } from '../../store/projection-view.js';
import type { SnapshotStore } from '../../store/projection-snapshots.js';
import type { ProofResolver } from '../../security/ucan/chain-container.js';
import type { RevocationCheck } from '../../security/ucan/chain-verifier.js';
import { decodeUcan } from '../../security/ucan/ucan-token.js';
import { verifyRevocation, type UcanRevocation } from '../../security/ucan/revocation.js';

/** The event type of a revocation. */
export const UCAN_REVOKED_EVENT = 'ucan.revoked' satisfies EventType;
/** The projection's name. */
export const REVOCATIONS_PROJECTION_NAME = 'ucan.revocations';

/** Data of `ucan.revoked`: the revocation message as received. */
export interface UcanRevokedData {
  /** The revoked token's canonical CID. */
  readonly cid: string;
  /** The revoker's did:key. */
  readonly issuer: string;
  /** The signed challenge (`REVOKE:<cid>` signed by `issuer`, base64url). */
  readonly challenge: string;
}

declare module '../../store/event-map.js' {
  /** The revocation event of UCAN tokens. */
  interface EventMap {
    'ucan.revoked': UcanRevokedData;
  }
}

/** The revocations known: revoked CID → the issuers who revoked it. */
export type RevocationsState = Map<string, string[]>;

/** The projection of `ucan.revoked` events (the events were checked before they were written). */
export const revocationsProjection: Projection<RevocationsState> = {
  name: REVOCATIONS_PROJECTION_NAME,
  version: 1,
  filter: { type: UCAN_REVOKED_EVENT },
  initial: () => new Map(),
  apply: eventHandlers<RevocationsState>({
    'ucan.revoked': (state, event) => {
      const data: Partial<UcanRevokedData> = event.data; // an older log may hold less
      if (typeof data.cid !== 'string' || typeof data.issuer !== 'string') return state;
      const issuers = state.get(data.cid) ?? [];
      if (!issuers.includes(data.issuer)) state.set(data.cid, [...issuers, data.issuer].sort());
      return state;
    },
  }),
  toJson: (state) => Object.fromEntries([...state.entries()].sort(([a], [b]) => (a < b ? -1 : 1))),
  fromJson: (json) => new Map(Object.entries(json as Record<string, string[]>).map(([k, v]) => [k, [...v]])),
};

/** Options of {@link createRevocations}. */
export interface RevocationsInit {
  /** The node's log (started by its owner before `start()`). */
  readonly log: EventLog;
  /** Finds tokens by CID, to refuse at once a revocation by an issuer outside the chain. */
  readonly resolver?: ProofResolver;
  /** Snapshots for the projection. @default none */
  readonly snapshots?: SnapshotStore;
}

/** The node's revocations: record them (as events) and answer the chain verifier. */
export interface Revocations extends RevocationCheck {
  /** The live projection. */
  readonly view: ProjectionView<RevocationsState>;
  /** Catches up with the log and follows it. */
  start(options?: SignalOptions): Promise<void>;
  /** Stops following. Safe to call twice. */
  stop(): Promise<void>;
  /**
   * Checks a revocation message and records it as a `ucan.revoked` event; resolves once the
   * projection has it (a duplicate resolves without a second event).
   * @throws PlexusError `INVALID_PARAMS` / `UNAUTHORIZED` from the message check;
   *   `FORBIDDEN` when the token is known here and the revoker is not an issuer of its chain.
   */
  revoke(message: UcanRevocation, options?: SignalOptions): Promise<void>;
  /** The issuers who revoked `cid` (empty when none). */
  revokers(cid: string): readonly string[];
}

/** The issuers of a known token's chain, as far as the resolver knows it. */
function chainIssuers(
  cid: string,
  resolver: ProofResolver,
  depth = 0,
  out = new Set<string>(),
): Set<string> | undefined {
  const text = resolver.resolve(cid);
  if (text === undefined || depth > 16) return undefined;
  const { payload } = decodeUcan(text);
  out.add(payload.iss);
  for (const p of payload.prf) chainIssuers(p, resolver, depth + 1, out);
  return out;
}

/**
 * Creates the node's revocations over its log.
 *
 * @example
 * const revocations = createRevocations({ log, resolver: store });
 * await revocations.start();
 * const verifier = ucanVerifier({ roots, audience, revocations });
 */
export function createRevocations(init: RevocationsInit): Revocations {
  const view = projectionView({
    log: init.log,
    projection: revocationsProjection,
    ...(init.snapshots === undefined ? {} : { snapshots: init.snapshots }),
  });
  return {
    view,
    start: (options) => view.start(options),
    stop: () => view.stop(),
    get size() {
      return view.state().size;
    },
    isRevoked(cid, issuers) {
      const revokers = view.state().get(cid);
      return revokers !== undefined && revokers.some((r) => issuers.has(r));
    },
    revokers: (cid) => view.state().get(cid) ?? [],
    async revoke(message, options = {}) {
      const checked = verifyRevocation(message);
      if (init.resolver !== undefined) {
        const issuers = chainIssuers(checked.revoke, init.resolver);
        if (issuers !== undefined && !issuers.has(checked.iss)) {
          throw new PlexusError(
            'FORBIDDEN',
            `${checked.iss} may not revoke ${checked.revoke}: only an issuer in the token's chain may revoke it`,
            { details: { cid: checked.revoke, issuer: checked.iss } },
          );
        }
      }
      if (view.state().get(checked.revoke)?.includes(checked.iss) === true) return;
      const data: UcanRevokedData = {
        cid: checked.revoke,
        challenge: checked.challenge,
        issuer: checked.iss,
      };
      const event = await init.log.append(
        { type: UCAN_REVOKED_EVENT, data, causation: checked.revoke },
        options,
      );
      await view.waitFor(event.seq, options);
    },
  };
}
