/**
 * The text waterfall of one trace for `plexus trace` (seed 002 §12.1); the spans come from
 * {@link buildTrace} (src/observability/trace-spans.ts).
 */
import type { SpanStatus, TraceSpan, TraceView } from '../observability/trace-spans.js';

/** Writes a duration: `12 ms`, `1.23 s`, `2 min 5 s`. */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(2)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** Options of {@link renderWaterfall}. */
export interface WaterfallOptions {
  /** The terminal width in columns. @default 100 */
  readonly width?: number;
  /** ANSI colours (only on a terminal). @default false */
  readonly color?: boolean;
}

const COLORS: Readonly<Record<SpanStatus, string>> = {
  ok: '\u001b[32m',
  failed: '\u001b[31m',
  rejected: '\u001b[31m',
  cancelled: '\u001b[33m',
  running: '\u001b[36m',
  queued: '\u001b[36m',
};
const RESET = '\u001b[0m';
const DIM = '\u001b[2m';

function pad(s: string, n: number): string {
  return s.length >= n ? s.slice(0, n) : s + ' '.repeat(n - s.length);
}

function padStart(s: string, n: number): string {
  return s.length >= n ? s : ' '.repeat(n - s.length) + s;
}

/** True when output should be coloured: a terminal, and neither `NO_COLOR` nor `--no-color`. */
export function shouldColor(
  stream: { readonly isTTY?: boolean },
  env: Readonly<Record<string, string | undefined>>,
  flag = true,
): boolean {
  return flag && stream.isTTY === true && (env['NO_COLOR'] ?? '') === '';
}

/**
 * Draws a trace as a waterfall: one line per span (indented by depth) with its span id,
 * offset, duration and status, and a bar scaled to the width (`░` queued, `█` working);
 * emitted events as `·` lines under their span.
 */
export function renderWaterfall(view: TraceView, options: WaterfallOptions = {}): string {
  const width = Math.max(60, Math.floor(options.width ?? 100));
  const color = options.color === true;
  const paint = (code: string, s: string): string => (color ? `${code}${s}${RESET}` : s);
  const labels = view.spans.map((s) => `${'  '.repeat(s.depth)}${s.verb}`);
  const markLabels = view.spans.flatMap((s) => s.marks.map((m) => `${'  '.repeat(s.depth + 1)}· ${m.type}`));
  const nameWidth = Math.min(
    40,
    Math.max(4, ...labels.map((l) => l.length), ...markLabels.map((l) => l.length)),
  );
  const statusWidth = Math.max(6, ...view.spans.map((s) => statusText(s).length));
  const fixed = nameWidth + 2 + 16 + 2 + 9 + 2 + 9 + 2 + statusWidth + 2 + 2;
  const barWidth = Math.max(10, width - fixed);
  const total = Math.max(view.durationMs, 1);
  const col = (ms: number): number => Math.min(barWidth - 1, Math.floor((ms / total) * barWidth));
  const lines = [
    `trace ${view.traceId} · ${view.spans.length} span${view.spans.length === 1 ? '' : 's'} · ${formatMs(view.durationMs)} · started ${view.startedAt}`,
    paint(
      DIM,
      `${pad('verb', nameWidth)}  ${pad('span', 16)}  ${padStart('start', 9)}  ${padStart('duration', 9)}  status`,
    ),
  ];
  view.spans.forEach((span, i) => {
    // the bar covers columns [from, to]: queued [from, work), working [work, to]
    const from = col(span.offsetMs);
    const to = Math.max(from, col(span.offsetMs + span.durationMs));
    const work = span.startedMs === undefined ? to + 1 : Math.min(to, Math.max(from, col(span.startedMs)));
    const bar = ' '.repeat(from) + '░'.repeat(work - from) + '█'.repeat(Math.max(0, to - work + 1));
    const cells = [
      pad(labels[i] ?? span.verb, nameWidth),
      pad(span.spanId ?? '-', 16),
      padStart(formatMs(span.offsetMs), 9),
      padStart(formatMs(span.durationMs), 9),
      pad(statusText(span), statusWidth),
    ].join('  ');
    lines.push(`${cells}  |${paint(COLORS[span.status], pad(bar, barWidth))}|`);
    for (const mark of span.marks) {
      const label = pad(`${'  '.repeat(span.depth + 1)}· ${mark.type}`, nameWidth);
      lines.push(paint(DIM, `${label}  ${pad('', 16)}  ${padStart(formatMs(mark.offsetMs), 9)}`));
    }
  });
  return `${lines.join('\n')}\n`;
}

function statusText(span: TraceSpan): string {
  return span.error === undefined ? span.status : `${span.status} ${span.error.code}`;
}
