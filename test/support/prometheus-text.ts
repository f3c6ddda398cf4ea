/**
 * A reader of the Prometheus text exposition format (0.0.4) for tests: `# TYPE` lines and
 * samples `name{label="value",…} number`. Throws on a line it cannot read, so a test that
 * reads a scrape also checks that the scrape parses.
 */

/** One sample of a scrape. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** A parsed scrape. */
export interface Scrape {
  /** `# TYPE` of each metric family. */
  readonly types: ReadonlyMap<string, string>;
  readonly samples: readonly Sample[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/gy;

/** Parses `text`. @throws Error naming the first line that is not valid exposition text. */
export function parsePrometheusText(text: string): Scrape {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('# HELP ')) continue;
    if (line.startsWith('# TYPE ')) {
      const [name, type] = line.slice(7).split(' ');
      if (name === undefined || type === undefined) throw new Error(`bad TYPE line: ${line}`);
      types.set(name, type);
      continue;
    }
    const m = SAMPLE.exec(line);
    if (m === null) throw new Error(`bad sample line: ${line}`);
    const labels: Record<string, string> = {};
    const body = m[2] ?? '';
    LABEL.lastIndex = 0;
    let read = 0;
    for (let l = LABEL.exec(body); l !== null; l = LABEL.exec(body)) {
      labels[l[1]!] = l[2]!.replace(/\\"/g, '"').replace(/\\n/g, '\n').replace(/\\\\/g, '\\');
      read = LABEL.lastIndex;
    }
    if (read !== body.length) throw new Error(`bad labels: ${line}`);
    const value = Number(m[3] === '+Inf' ? Infinity : m[3]);
    if (Number.isNaN(value) && m[3] !== 'NaN') throw new Error(`bad value: ${line}`);
    samples.push({ name: m[1]!, labels, value });
  }
  return { types, samples };
}

/** The value of the sample `name` whose labels include `labels`, or `undefined`. */
export function sampleValue(
  scrape: Scrape,
  name: string,
  labels: Readonly<Record<string, string>> = {},
): number | undefined {
  return scrape.samples.find(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  )?.value;
}
