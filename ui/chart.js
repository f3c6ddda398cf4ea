// A small SVG line chart: one or more series over the last samples, with a labelled y axis.
import { h, svg } from './dom.js';

const W = 480;
const H = 160;
const PAD = { left: 48, right: 8, top: 10, bottom: 20 };

/**
 * A chart of `series` ([{name, values: number[] (null = no value), className}]) titled
 * `title`, values formatted by `format`, over `slots` samples, the y axis reaching at least
 * `floor`. The figure's text alternative names the last values.
 */
export function lineChart(title, series, format = (v) => v.toFixed(1), { slots = 60, floor = 1 } = {}) {
  const all = series.flatMap((s) => s.values.filter((v) => v !== null && Number.isFinite(v)));
  const max = Math.max(floor, ...all) * 1.1;
  const n = Math.max(2, slots, ...series.map((s) => s.values.length));
  // the newest value at the right edge; older ones to its left
  const x = (i, length) => PAD.left + ((n - length + i) * (W - PAD.left - PAD.right)) / (n - 1);
  const y = (v) => H - PAD.bottom - (v / max) * (H - PAD.top - PAD.bottom);
  const lines = series.map((s) => {
    let d = '';
    s.values.forEach((v, i) => {
      if (v === null || !Number.isFinite(v)) return;
      d += `${d === '' || s.values[i - 1] === null ? 'M' : 'L'}${x(i, s.values.length).toFixed(1)},${y(v).toFixed(1)}`;
    });
    return svg('path', { d: d || 'M0,0', class: `line ${s.className ?? ''}`, fill: 'none' });
  });
  const last = series.map((s) => {
    const v = [...s.values].reverse().find((e) => e !== null && Number.isFinite(e));
    return `${s.name} ${v === undefined ? '—' : format(v)}`;
  });
  const grid = [0, 0.5, 1].map((f) => [
    svg('line', { x1: PAD.left, x2: W - PAD.right, y1: y(max * f), y2: y(max * f), class: 'grid' }),
    svg('text', { x: PAD.left - 4, y: y(max * f) + 4, 'text-anchor': 'end', class: 'axis' }, format(max * f)),
  ]);
  return h(
    'figure',
    { class: 'chart' },
    h('figcaption', {}, h('strong', {}, title), ' — ', last.join(' · ')),
    svg(
      'svg',
      { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': `${title}: ${last.join(', ')}` },
      grid,
      lines,
    ),
  );
}
