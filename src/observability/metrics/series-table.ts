/**
 * Labelled meters with many series, rendered straight to the Prometheus text format (OBS-51).
 *
 * prom-client formats every sample of a scrape anew — label objects built, values escaped, parts
 * joined — which costs several microseconds a sample: with 1,000 verbs × 10 tenants the
 * invocation histogram alone is 34,000 samples and the scrape took half a second. Here each
 * series keeps its label text, escaped once when the series is first seen, and a scrape only
 * joins that text with the numbers; a histogram series nothing was observed in since the last
 * scrape reuses its lines as they were written (most verbs of a large node are idle between two
 * scrapes). The text is the one prom-client writes (`# HELP`, `# TYPE`,
 * cumulative `_bucket` lines with `le`, then `_sum` and `_count`), so a scraper sees no difference.
 */

/** A counter family: one value per distinct tuple of label values. */
export interface CounterTable {
  /** Adds `by` (default 1) to the series of `values` (in the order of the label names). */
  inc(values: readonly string[], by?: number): void;
  /** Appends the family's text (HELP, TYPE, one line per series) to `out`. */
  render(out: string[]): void;
  /** The sum over every series, and over those whose label `label` is not `value`. */
  total(except?: { readonly label: string; readonly value: string }): number;
}

/** A histogram family: bucket counts, sum and count per distinct tuple of label values. */
export interface HistogramTable {
  /** Records `observed` in the series of `values`. */
  observe(values: readonly string[], observed: number): void;
  /** Appends the family's text to `out`. */
  render(out: string[]): void;
  /** Every series added up: cumulative counts per upper bound (the last is `+Inf`), sum, count. */
  total(): { readonly buckets: readonly number[]; readonly sum: number; readonly count: number };
}

/** A meter's name, help and label names. */
export interface TableInit {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
}

/** Prometheus's number form: prom-client's (`Nan`, `+Inf`, `-Inf`, else JavaScript's). */
export function promNumber(value: number): string {
  if (Number.isNaN(value)) return 'Nan';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

/** A label value as the text format writes it: `\`, newline and `"` escaped. */
export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

/** HELP text as the format writes it: `\` and newline escaped. */
function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

/** The key of a tuple of label values (NUL never occurs in a kept label value). */
const keyOf = (values: readonly string[]): string =>
  values.length === 1 ? (values[0] as string) : values.join('\u0000');

/** `name="v",other="w"`, escaped. */
function labelText(names: readonly string[], values: readonly string[]): string {
  let text = '';
  for (let i = 0; i < names.length; i++) {
    text += `${i === 0 ? '' : ','}${names[i] as string}="${escapeLabelValue(values[i] ?? '')}"`;
  }
  return text;
}

function header(out: string[], init: TableInit, type: string): void {
  out.push(`# HELP ${init.name} ${escapeHelp(init.help)}`, `# TYPE ${init.name} ${type}`);
}

interface CounterSeries {
  readonly labels: string;
  readonly values: readonly string[];
  value: number;
}

/**
 * Creates a counter family.
 * @example
 * const calls = counterTable({ name: 'x_total', help: 'Calls.', labelNames: ['verb'] });
 * calls.inc(['a.b']);
 */
export function counterTable(init: TableInit): CounterTable {
  const series = new Map<string, CounterSeries>();
  return {
    inc(values, by = 1) {
      const key = keyOf(values);
      let s = series.get(key);
      if (s === undefined) {
        s = { labels: labelText(init.labelNames, values), values: [...values], value: 0 };
        series.set(key, s);
      }
      s.value += by;
    },
    render(out) {
      header(out, init, 'counter');
      const { name } = init;
      for (const s of series.values()) out.push(`${name}{${s.labels}} ${promNumber(s.value)}`);
    },
    total(except) {
      const at = except === undefined ? -1 : init.labelNames.indexOf(except.label);
      let sum = 0;
      for (const s of series.values()) if (at < 0 || s.values[at] !== except?.value) sum += s.value;
      return sum;
    },
  };
}

interface HistogramSeries {
  readonly labels: string;
  /** The series' lines as last rendered; `undefined` once an observation changed them. */
  text: string | undefined;
  /** Observations per bucket (not cumulative); the last slot is beyond the largest bound. */
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

/**
 * Creates a histogram family with `buckets` (upper bounds, ascending; `+Inf` is implied).
 *
 * @throws RangeError when the bounds are not finite and strictly ascending.
 * @example
 * const seconds = histogramTable({ name: 'x_seconds', help: 'Time.', labelNames: ['verb'] }, [0.1, 1]);
 * seconds.observe(['a.b'], 0.02);
 */
export function histogramTable(init: TableInit, buckets: readonly number[]): HistogramTable {
  buckets.forEach((b, i) => {
    if (!Number.isFinite(b) || (i > 0 && b <= (buckets[i - 1] as number))) {
      throw new RangeError(
        `${init.name}: bucket bounds must be finite and ascending, got ${buckets.join(', ')}`,
      );
    }
  });
  const bounds = [...buckets];
  // `_bucket{…,le="0.005"} ` — the tail of each bucket line's labels, made once
  const tails = [...bounds.map((b) => `,le="${promNumber(b)}"} `), `,le="+Inf"} `];
  const series = new Map<string, HistogramSeries>();
  return {
    observe(values, observed) {
      const key = keyOf(values);
      let s = series.get(key);
      if (s === undefined) {
        s = {
          labels: labelText(init.labelNames, values),
          text: undefined,
          counts: new Float64Array(bounds.length + 1),
          sum: 0,
          count: 0,
        };
        series.set(key, s);
      }
      let i = 0;
      while (i < bounds.length && observed > (bounds[i] as number)) i++;
      s.counts[i] = (s.counts[i] as number) + 1;
      s.sum += observed;
      s.count += 1;
      s.text = undefined;
    },
    render(out) {
      header(out, init, 'histogram');
      const bucket = `${init.name}_bucket{`;
      const sum = `${init.name}_sum{`;
      const count = `${init.name}_count{`;
      for (const s of series.values()) {
        if (s.text !== undefined) {
          out.push(s.text); // nothing observed since the last scrape
          continue;
        }
        // one flat string per series (`join` makes a flat string; a `+=` chain would leave a
        // rope that every later scrape walks again)
        const start = bucket + s.labels;
        const lines = new Array<string>(tails.length + 2);
        let cumulative = 0;
        for (let i = 0; i < tails.length; i++) {
          cumulative += s.counts[i] as number;
          lines[i] = start + (tails[i] as string) + String(cumulative);
        }
        lines[tails.length] = `${sum}${s.labels}} ${promNumber(s.sum)}`;
        lines[tails.length + 1] = `${count}${s.labels}} ${s.count}`;
        s.text = lines.join('\n');
        out.push(s.text);
      }
    },
    total() {
      const per = new Array<number>(bounds.length + 1).fill(0);
      let sum = 0;
      let count = 0;
      for (const s of series.values()) {
        for (let i = 0; i < per.length; i++) per[i] = (per[i] as number) + (s.counts[i] as number);
        sum += s.sum;
        count += s.count;
      }
      for (let i = 1; i < per.length; i++) per[i] = (per[i] as number) + (per[i - 1] as number);
      return { buckets: per, sum, count };
    },
  };
}
