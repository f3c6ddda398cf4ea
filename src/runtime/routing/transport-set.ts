/**
 * The router's transports as a set that grows after the router exists (docs/decisions/mesh.md
 * MESH-7): the node builds its router before its faces, and a face that carries requests to
 * other nodes (the mesh face's `/plexus/rpc/1.0.0`) adds its transport here when it is made.
 * Added transports are asked before the fixed ones (the last fixed one is `local`, which never
 * claims a remote target anyway).
 */
import type { RouteTransport } from './transport.js';

/** A set of transports, asked in order. */
export interface RouteTransportSet {
  /** The transports now, in the order the router asks them. */
  list(): readonly RouteTransport[];
  /**
   * Adds `transport` (asked before the fixed ones, after those added earlier); returns the
   * function that removes it again.
   */
  add(transport: RouteTransport): () => void;
}

/**
 * Creates a set over `fixed` transports.
 *
 * @example
 * const transports = routeTransportSet([httpPeerTransport(…), localTransport(runtime)]);
 * const remove = transports.add(meshRpcTransport(…));
 */
export function routeTransportSet(fixed: readonly RouteTransport[]): RouteTransportSet {
  let added: readonly RouteTransport[] = [];
  let current: readonly RouteTransport[] = [...fixed];
  return {
    list: () => current,
    add(transport) {
      added = [...added, transport];
      current = [...added, ...fixed];
      return () => {
        added = added.filter((t) => t !== transport);
        current = [...added, ...fixed];
      };
    },
  };
}
