/**
 * `GET /ui/api/metrics`: the node's own figures as one small JSON object for the dashboard's
 * charts (OBS-42), read from the same prom-client registry `GET /metrics` renders. The totals
 * are cumulative since the node started; the dashboard differences two samples for rates and
 * for the p50 / p99 of the invocations between them (from the histogram's buckets).
 */
import type { Registry } from 'prom-client';
import type { JsonObject } from '../../core/json.js';
import { SUCCESS_STATUS } from '../../observability/metrics/node-metrics.js';

interface MetricValue {
  readonly value: number;
  readonly labels: Readonly<Record<string, string | number>>;
  readonly metricName?: string;
}

async function valuesOf(registry: Registry, name: string): Promise<readonly MetricValue[]> {
  const metric = registry.getSingleMetric(name);
  if (metric === undefined) return [];
  const data = (await metric.get()) as { values: MetricValue[] };
  return data.values;
}

const sum = (values: readonly MetricValue[]): number => values.reduce((total, v) => total + v.value, 0);

/**
 * The figures of `registry` at `now`: `invocations` and `errors` (invocations whose status is
 * not success), the duration histogram summed over verbs and tenants (`buckets` as
 * `[upper bound seconds, cumulative count]`, `+Inf` last as `null`), `shed` requests, and the
 * gauges of work in flight.
 */
export async function uiMetricsOf(registry: Registry, now: number = Date.now()): Promise<JsonObject> {
  const invocations = await valuesOf(registry, 'agentese_invocations_total');
  const durations = await valuesOf(registry, 'agentese_invocation_duration_seconds');
  const buckets = new Map<number, number>();
  for (const v of durations) {
    if (v.metricName?.endsWith('_bucket') !== true) continue;
    const le = v.labels['le'] === '+Inf' ? Infinity : Number(v.labels['le']);
    buckets.set(le, (buckets.get(le) ?? 0) + v.value);
  }
  const count = sum(durations.filter((v) => v.metricName?.endsWith('_count') === true));
  const seconds = sum(durations.filter((v) => v.metricName?.endsWith('_sum') === true));
  return {
    time: new Date(now).toISOString(),
    invocations: sum(invocations),
    errors: sum(invocations.filter((v) => v.labels['status'] !== SUCCESS_STATUS)),
    duration: {
      count,
      sum_seconds: seconds,
      buckets: [...buckets.entries()]
        .sort((a, b) => a[0] - b[0])
        .map(([le, n]) => [Number.isFinite(le) ? le : null, n]),
    },
    shed: sum(await valuesOf(registry, 'plexus_shed_requests_total')),
    invocations_in_flight: sum(await valuesOf(registry, 'plexus_invocations_in_flight')),
    requests_in_flight: sum(await valuesOf(registry, 'plexus_requests_in_flight')),
  };
}
