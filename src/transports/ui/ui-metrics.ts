/**
 * `GET /ui/api/metrics`: the node's own figures as one small JSON object for the dashboard's
 * charts (OBS-42), read from the same meters `GET /metrics` renders (their node-wide overview,
 * every verb and tenant added up: OBS-51). The totals are cumulative since the node started; the
 * dashboard differences two samples for rates and for the p50 / p99 of the invocations between
 * them (from the histogram's buckets).
 */
import type { JsonObject } from '../../core/json.js';
import type { NodeMetrics } from '../../observability/metrics/node-metrics.js';

/**
 * The figures of `metrics` at `now`: `invocations` and `errors` (invocations whose status is
 * not success), the duration histogram summed over verbs and tenants (`buckets` as
 * `[upper bound seconds, cumulative count]`, `+Inf` last as `null`), `shed` requests, and the
 * gauges of work in flight.
 */
export function uiMetricsOf(metrics: Pick<NodeMetrics, 'overview'>, now: number = Date.now()): JsonObject {
  const o = metrics.overview();
  return {
    time: new Date(now).toISOString(),
    invocations: o.invocations,
    errors: o.errors,
    duration: {
      count: o.duration.count,
      sum_seconds: o.duration.sumSeconds,
      buckets: o.duration.buckets.map(([le, n]) => [Number.isFinite(le) ? le : null, n]),
    },
    shed: o.shed,
    invocations_in_flight: o.invocationsInFlight,
    requests_in_flight: o.requestsInFlight,
  };
}
