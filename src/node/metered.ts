/**
 * The node's health meters fed from seams the node already holds (docs/observability.md):
 * its event log's appends (latency and commit batch size) and its admission gate (shed
 * requests, requests in flight). Each wrapper hands everything else out unchanged.
 */
import { PlexusError } from '../core/errors.js';
import type { NodeMetrics } from '../observability/metrics/node-metrics.js';
import type { EventLog } from '../store/index.js';
import type { Admission } from '../transports/admission.js';

/** `log` with each successful append timed and its batch size recorded in `metrics`. */
export function meteredLog(log: EventLog, metrics: NodeMetrics): EventLog {
  const append = ((
    events: Parameters<EventLog['append']>[0],
    options?: Parameters<EventLog['append']>[1],
  ) => {
    const started = performance.now();
    const count = Array.isArray(events) ? events.length : 1;
    return (log.append(events as never, options) as Promise<unknown>).then((written) => {
      metrics.logAppended(count, (performance.now() - started) / 1000);
      return written;
    });
  }) as EventLog['append'];
  // The logs are closures (no `this`), and some members are read-only symbols: only `append`
  // is replaced (as in log-health.ts).
  return new Proxy(log, {
    get: (target, property) =>
      property === 'append' ? append : (Reflect.get(target, property, target) as unknown),
  });
}

/** `gate` with each shed request counted, and its requests in flight read at each scrape. */
export function meteredAdmission(gate: Admission, metrics: NodeMetrics): Admission {
  metrics.inFlightFrom(() => gate.inFlight());
  return {
    limits: gate.limits,
    inFlight: () => gate.inFlight(),
    admit(connection) {
      try {
        return gate.admit(connection);
      } catch (error) {
        if (error instanceof PlexusError && error.code === 'RATE_LIMITED') metrics.shed();
        throw error;
      }
    },
  };
}
