/** The metrics face: `GET /metrics` in the Prometheus text format. */
export { METRICS_PATH, metricsFace, type MetricsFaceInit } from './metrics-face.js';
