/**
 * Load shedding at the faces: a bound on the work in flight on the node and on each
 * connection. A face asks for a slot before it decodes or runs anything (so a shed request
 * never becomes a job); beyond either bound the answer is `RATE_LIMITED` — HTTP 429 with
 * `Retry-After`, JSON-RPC −32003 (Hyperspace "Rate Limited") — and the caller may retry.
 * Health probes never ask (docs/decisions/overload.md).
 */
import { PlexusError } from '../core/errors.js';

/** The bounds on work in flight. */
export interface AdmissionLimits {
  /** Most requests (and asynchronous jobs they started) in flight on the node. */
  readonly maxInFlight: number;
  /** Most requests in flight on one connection (a TCP connection, a WebSocket). */
  readonly maxInFlightPerConnection: number;
}

/** The defaults: the runtime's concurrency (256) on the node, 32 per connection. */
export const DEFAULT_ADMISSION_LIMITS: AdmissionLimits = {
  maxInFlight: 256,
  maxInFlightPerConnection: 32,
};

/** A taken slot. Each release is idempotent. */
export interface AdmissionSlot {
  /** Gives back the connection's share only (the node's share is kept, e.g. for an async job). */
  releaseConnection(): void;
  /** Gives back both shares. */
  release(): void;
}

/** The node's admission control. */
export interface Admission {
  /** The bounds it applies. */
  readonly limits: AdmissionLimits;
  /**
   * Takes a slot for one request on `connection` (any object that identifies the
   * connection: a socket, a WebSocket).
   *
   * @throws PlexusError `RATE_LIMITED` (retryable) naming the bound that is reached.
   */
  admit(connection: object): AdmissionSlot;
  /** Requests in flight on the node now. */
  inFlight(): number;
}

function checkLimit(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `limits.${name} must be a whole number ≥ 1, got ${String(value)}`,
      {
        details: { field: `limits.${name}` },
      },
    );
  }
}

/**
 * Creates the admission control of a node.
 *
 * @throws PlexusError `INVALID_PARAMS` for a bound that is not a whole number ≥ 1.
 * @example
 * const gate = admission({ maxInFlight: 256, maxInFlightPerConnection: 32 });
 * const slot = gate.admit(socket); // throws RATE_LIMITED when full
 * try { await work(); } finally { slot.release(); }
 */
export function admission(limits: Partial<AdmissionLimits> = {}): Admission {
  const settled: AdmissionLimits = { ...DEFAULT_ADMISSION_LIMITS, ...limits };
  checkLimit('maxInFlight', settled.maxInFlight);
  checkLimit('maxInFlightPerConnection', settled.maxInFlightPerConnection);
  let total = 0;
  const perConnection = new WeakMap<object, number>();
  return {
    limits: settled,
    inFlight: () => total,
    admit(connection) {
      const mine = perConnection.get(connection) ?? 0;
      if (total >= settled.maxInFlight) {
        throw new PlexusError(
          'RATE_LIMITED',
          `the node is busy: ${settled.maxInFlight} requests are in flight, its limit; retry shortly`,
          { details: { limit: settled.maxInFlight, scope: 'node' } },
        );
      }
      if (mine >= settled.maxInFlightPerConnection) {
        throw new PlexusError(
          'RATE_LIMITED',
          `this connection has ${settled.maxInFlightPerConnection} requests in flight, its limit; wait for an answer, or open another connection`,
          { details: { limit: settled.maxInFlightPerConnection, scope: 'connection' } },
        );
      }
      total++;
      perConnection.set(connection, mine + 1);
      let nodeHeld = true;
      let connectionHeld = true;
      const releaseConnection = (): void => {
        if (!connectionHeld) return;
        connectionHeld = false;
        const left = (perConnection.get(connection) ?? 1) - 1;
        if (left > 0) perConnection.set(connection, left);
        else perConnection.delete(connection);
      };
      return {
        releaseConnection,
        release() {
          releaseConnection();
          if (!nodeHeld) return;
          nodeHeld = false;
          total--;
        },
      };
    },
  };
}
