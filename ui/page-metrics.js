// Metrics charts drawn from the node's own figures (GET /ui/api/metrics, polled every two
// seconds): invocations per second, p50 and p99 latency of the invocations between two
// samples (from the duration histogram's buckets), errors per second and shed requests.
import { aborted, getJson } from './api.js';
import { lineChart } from './chart.js';
import { fill, h, heading, problem } from './dom.js';

const EVERY_MS = 2000;
const KEEP = 60;

/** The q-quantile (0…1) of the observations between two cumulative bucket lists, seconds. */
export function quantile(before, after, q) {
  const counts = after.map(([le, n], i) => [le, n - (before[i]?.[1] ?? 0)]);
  const total = counts.at(-1)?.[1] ?? 0;
  if (total <= 0) return null;
  const rank = q * total;
  let prevLe = 0;
  let prevCount = 0;
  for (const [le, count] of counts) {
    if (count >= rank) {
      if (le === null) return prevLe; // beyond the last finite bound
      const inBucket = count - prevCount;
      return inBucket <= 0 ? le : prevLe + ((le - prevLe) * (rank - prevCount)) / inBucket;
    }
    prevLe = le ?? prevLe;
    prevCount = count;
  }
  return prevLe;
}

export async function render(main, _params, signal) {
  const samples = [];
  const charts = h('div', { class: 'charts', 'aria-live': 'off' });
  const totals = h('p', { class: 'muted', id: 'metrics-totals' });
  fill(
    main,
    heading('Metrics'),
    h(
      'p',
      {},
      'Figures of this node, sampled every two seconds (the last two minutes). The same meters are at ',
      h('a', { href: '/metrics' }, '/metrics'),
      ' for Prometheus.',
    ),
    totals,
    charts,
  );

  const draw = () => {
    const pairs = samples.slice(1).map((s, i) => [samples[i], s]);
    const rate = (key) =>
      pairs.map(
        ([a, b]) => (b[key] - a[key]) / Math.max(0.001, (Date.parse(b.time) - Date.parse(a.time)) / 1000),
      );
    const q = (p) =>
      pairs.map(([a, b]) => {
        const v = quantile(a.duration.buckets, b.duration.buckets, p);
        return v === null ? null : v * 1000;
      });
    const last = samples.at(-1);
    fill(
      totals,
      `Since start: ${last.invocations} invocations, ${last.errors} errors, ${last.shed} shed requests; ${last.invocations_in_flight} invocations in flight.`,
    );
    fill(
      charts,
      lineChart('Invocations per second', [{ name: 'invocations/s', values: rate('invocations') }], (v) =>
        v.toFixed(1),
      ),
      lineChart(
        'Latency',
        [
          { name: 'p50', values: q(0.5) },
          { name: 'p99', values: q(0.99), className: 'second' },
        ],
        (v) => `${v.toFixed(v < 10 ? 1 : 0)} ms`,
        { slots: KEEP, floor: 1 },
      ),
      lineChart('Errors per second', [{ name: 'errors/s', values: rate('errors'), className: 'bad' }], (v) =>
        v.toFixed(2),
      ),
      lineChart(
        'Shed requests per second',
        [{ name: 'shed/s', values: rate('shed'), className: 'bad' }],
        (v) => v.toFixed(2),
      ),
    );
  };

  const poll = async () => {
    try {
      samples.push(await getJson('/ui/api/metrics', signal));
      if (samples.length > KEEP + 1) samples.shift();
      draw();
    } catch (error) {
      if (aborted(error)) return;
      fill(charts, problem(error));
    }
  };
  await poll();
  const timer = setInterval(() => void poll(), EVERY_MS);
  signal.addEventListener('abort', () => clearInterval(timer));
}
