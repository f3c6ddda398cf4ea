/**
 * What every face of a node (HTTP, WebSocket JSON-RPC, node-to-node) is given by the node
 * that assembles it. Faces hold no state of their own beyond connections: everything
 * durable is in the runtime and the log.
 */
import type { Runtime } from '../runtime/index.js';
import type { Observer } from '../runtime/observer.js';
import type { RouteTransportSet } from '../runtime/routing/index.js';
import type { Authenticator, Principal as AuthPrincipal } from '../security/auth/index.js';
import type { EnvelopeVerifier } from '../security/index.js';
import type { ArtifactStore, EventLog } from '../store/index.js';
import type { CapabilityGate } from './capability-gate.js';
import type { Logger } from '../core/logger.js';
import type { NodeMetrics } from '../observability/metrics/node-metrics.js';
import type { TrajectoryGossip } from '../primitives/improving/index.js';

export { silentLogger } from '../core/logger.js';

/** Signs bytes with the node's Ed25519 key (A2A card signatures), never handing the key out. */
export interface NodeSigner {
  /** The JWS `kid` naming the key: the node's did:key. */
  readonly kid: string;
  /** The Ed25519 signature of `data`. */
  sign(data: Uint8Array): Uint8Array;
}

/** The injected dependencies of a face. */
export interface FaceComponents {
  /** The runtime: invoke, submit, jobs, registry. */
  readonly runtime: Runtime;
  /** The node's event log (SSE resume reads job events by `seq`). */
  readonly log: EventLog;
  /** Content-addressed artifacts (ESRP outputs by `workspace://` URI). */
  readonly artifacts: ArtifactStore;
  /** Checks `Authorization: Bearer …`; with `allowAnonymous` it admits callers without one. */
  readonly auth: Authenticator;
  /** Verifies D3 signed envelopes forwarded by peer nodes. */
  readonly verifier: EnvelopeVerifier;
  /** The node's own id (its did:key): `from` of answers the node gives itself. */
  readonly nodeId: string;
  /**
   * The node's UCAN checks, when capability checks are on: UCAN credentials
   * (`Authorization: Bearer <ucan>`) and revocations over the wire. Absent = UCANs are not
   * accepted as credentials. @default none
   */
  readonly capabilities?: CapabilityGate;
  /** Signs with the node key (docs/decisions/a2a.md A2A-4). Absent = cards are unsigned. */
  readonly nodeSigner?: NodeSigner;
  /**
   * The node key's 32-byte Ed25519 secret (RFC 8032 seed), for the one face that must run the
   * key itself: the mesh face, whose libp2p peer identity is the node key (D2;
   * docs/decisions/mesh.md MESH-2). Other faces sign through `nodeSigner`. Absent = no mesh.
   */
  readonly nodeSecret?: () => Uint8Array;
  /** The node's data directory, for faces that keep a file of their own (the mesh's known peers). */
  readonly dataDir?: string;
  /** Where faces log. @default silentLogger */
  readonly logger?: Logger;
  /** The node's meters (`GET /metrics`). Absent = the node keeps none. */
  readonly metrics?: NodeMetrics;
  /**
   * The node's tracer (docs/observability.md "Traces"): the HTTP faces report a SERVER span per
   * request through it. Absent = the node does not trace (the default; nothing is paid).
   */
  readonly tracing?: Observer;
  /**
   * The node router's transports: a face that carries requests to other nodes adds its
   * transport here (the mesh face's `/plexus/rpc/1.0.0`; docs/decisions/mesh.md MESH-7).
   * Absent = the node routes nothing remote through faces. @default none
   */
  readonly routeTransports?: Pick<RouteTransportSet, 'add'>;
  /**
   * The improving primitive's trajectory gossip seam, when the node hosts it: the mesh face
   * attaches its topics there (docs/decisions/mesh.md MESH-29). Absent = no trajectory gossip.
   */
  readonly trajectories?: TrajectoryGossip;
}

/** The runtime's principal for an authenticated caller. */
export function runtimePrincipal(principal: AuthPrincipal): {
  id: string;
  kind: string;
  scopes: readonly string[];
  tenantId?: string;
} {
  return principal.tenant === undefined
    ? { id: principal.id, kind: principal.kind, scopes: principal.scopes }
    : { id: principal.id, kind: principal.kind, scopes: principal.scopes, tenantId: principal.tenant };
}
