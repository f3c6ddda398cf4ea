/**
 * Projection hints on the command line (seed 002 Part V, §5.3; DESIGN D6): how `plexus call`
 * learns a verb's hints and what the `cli:*` ones do.
 *
 * - Where the hints come from: `--manifest FILE` (the era a bare name resolves to), else the
 *   node's discovery data — the card offering the verb (`GET /agents?capability=VERB`; the one
 *   whose id is the ESRP service first, as the ESRP face routes) and its verb specs
 *   (`GET /agents/{id}/verbs`). A node that does not answer them gives no hints.
 * - `cli:prompt` `{template?}`: ask before running; the template's `{field}`s are filled from
 *   the input (`Run VERB? [y/N]` without one).
 * - `cli:json` `{jq?}`: print the output as one line of JSON; `jq` (a path: `.a.b`, `.[0]`,
 *   `.["k"]`, `.items[]`) selects what to print, one JSON text per line.
 * - `cli:table` `{jq?, columns?}`: print an array of objects (or the array `jq` selects) as a
 *   text table (the `table` widget's CLI form, seed §5.3).
 */
import { PlexusError } from '../core/errors.js';
import { isJsonObject, type JsonValue } from '../core/json.js';
import type { ProjectionHints } from '../core/records/verb-spec.js';
import { stripVerbVersion } from '../core/verb-name.js';
import { countProblems, resolveStep } from '../wire/agentese/manifest/index.js';
import { readManifest } from './commands/lint.js';
import { esrpTargetOf } from './esrp-client.js';
import type { CliIo } from './io.js';
import { nodeRequest, type NodeTarget } from './node-client.js';

/** The projection keys `plexus call` acts on. */
export const CLI_PROJECTIONS = { prompt: 'cli:prompt', json: 'cli:json', table: 'cli:table' } as const;

/** The longest cell a table shows, characters (longer ones end with `…`). */
export const TABLE_CELL_LIMIT = 40;

/**
 * The hints of `verb` in a manifest: those of the era a bare name resolves to (the latest
 * stable era, else the latest deprecated one).
 *
 * @throws PlexusError `NOT_FOUND` for an unreadable file; `INVALID_PARAMS` when the manifest has
 *   errors or does not declare the verb.
 */
export async function hintsFromManifest(io: CliIo, file: string, verb: string): Promise<ProjectionHints> {
  const load = await readManifest(io, file);
  const { errors } = countProblems(load.problems);
  if (errors > 0) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `${file} has ${errors} error${errors === 1 ? '' : 's'}; run plexus lint ${file}`,
    );
  }
  const era = resolveStep(load.manifest, verb);
  if (typeof era === 'string') throw new PlexusError('INVALID_PARAMS', `--manifest ${file}: ${era}`);
  return era.projection ?? {};
}

async function getJson(target: NodeTarget, path: string): Promise<unknown> {
  const response = await nodeRequest(target, path, { timeoutMs: 10_000 });
  return response.status === 200 ? response.body : undefined;
}

/**
 * The hints of `verb` as the node knows them (see the module comment), or `undefined` when the
 * node names no card for the verb, serves no verb specs, or cannot be asked.
 */
export async function hintsFromNode(target: NodeTarget, verb: string): Promise<ProjectionHints | undefined> {
  try {
    const { service } = esrpTargetOf(verb);
    const list = await getJson(target, `/agents?capability=${encodeURIComponent(verb)}`);
    const agents =
      isJsonObject(list) && Array.isArray(list['agents']) ? list['agents'].filter(isJsonObject) : [];
    const card = agents.find((a) => a['id'] === service) ?? agents[0];
    if (card === undefined || typeof card['id'] !== 'string') return undefined;
    const body = await getJson(target, `/agents/${encodeURIComponent(card['id'])}/verbs`);
    const verbs =
      isJsonObject(body) && Array.isArray(body['verbs']) ? body['verbs'].filter(isJsonObject) : [];
    const spec = verbs.find((v) => v['name'] === stripVerbVersion(verb));
    const projection = spec?.['projection'];
    return isJsonObject(projection) ? (projection as ProjectionHints) : {};
  } catch {
    return undefined;
  }
}

function cellText(value: JsonValue | undefined): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * The question of a `cli:prompt` hint: its `template` with each `{field}` replaced by that
 * field of the input (text as is, other values as JSON; unknown fields are left as written),
 * ending in `[y/N]`.
 */
export function promptText(verb: string, hint: Readonly<Record<string, unknown>>, input: JsonValue): string {
  const template = typeof hint['template'] === 'string' ? hint['template'] : `Run ${verb}?`;
  const filled = template.replace(/\{([A-Za-z_][A-Za-z0-9_-]*)\}/g, (whole, field: string) => {
    const value = isJsonObject(input) ? input[field] : undefined;
    return value === undefined ? whole : cellText(value).replace(/[\r\n]+/g, ' ');
  });
  return /\[y\/N\]\s*$/i.test(filled) ? `${filled.trimEnd()} ` : `${filled.trimEnd()} [y/N] `;
}

/** True for an answer that means yes (`y`, `yes`, any case). */
export function isYes(answer: string): boolean {
  return /^\s*y(es)?\s*$/i.test(answer);
}

type PathStep = { readonly key: string } | { readonly index: number } | { readonly each: true };

/**
 * Parses the `jq` path subset: `.`, `.name`, `.["any key"]`, `.[3]`, `.[]`, chained (`.a.b[0]`,
 * `.items[].id`).
 *
 * @throws PlexusError `INVALID_PARAMS` for anything else (pipes, functions, slices).
 */
export function parseJqPath(path: string): PathStep[] {
  const text = path.trim();
  if (!text.startsWith('.')) throw new PlexusError('INVALID_PARAMS', `jq path must start with ".": ${path}`);
  const steps: PathStep[] = [];
  const re = /\.([A-Za-z_][A-Za-z0-9_]*)|\[\s*(\d+)\s*\]|\[\s*"((?:[^"\\]|\\.)*)"\s*\]|\[\s*\]|\./y;
  let at = 0;
  while (at < text.length) {
    re.lastIndex = at;
    const m = re.exec(text);
    if (m === null) {
      throw new PlexusError(
        'INVALID_PARAMS',
        `jq filter ${JSON.stringify(path)} is beyond the supported paths (.a.b, .[0], .["k"], .[]) at column ${at + 1}`,
      );
    }
    if (m[1] !== undefined) steps.push({ key: m[1] });
    else if (m[2] !== undefined) steps.push({ index: Number(m[2]) });
    else if (m[3] !== undefined) steps.push({ key: JSON.parse(`"${m[3]}"`) as string });
    else if (m[0].startsWith('[')) steps.push({ each: true });
    at = re.lastIndex;
  }
  return steps;
}

/**
 * The values a `jq` path selects from `value` (jq's rules: a missing key or index is `null`;
 * `.[]` yields every item or value).
 *
 * @throws PlexusError `INVALID_PARAMS` for a bad path, or a step that does not fit the value
 *   (a key into a list, an index into an object, `.[]` over a scalar).
 */
export function selectJq(value: JsonValue, path: string): JsonValue[] {
  let current: JsonValue[] = [value];
  for (const step of parseJqPath(path)) {
    const next: JsonValue[] = [];
    for (const v of current) {
      if ('each' in step) {
        if (Array.isArray(v)) next.push(...v);
        else if (isJsonObject(v)) next.push(...Object.values(v));
        else throw new PlexusError('INVALID_PARAMS', `cannot iterate over ${v === null ? 'null' : typeof v}`);
      } else if ('key' in step) {
        if (v === null) next.push(null);
        else if (isJsonObject(v)) next.push(v[step.key] ?? null);
        else
          throw new PlexusError(
            'INVALID_PARAMS',
            `cannot take .${step.key} of ${Array.isArray(v) ? 'a list' : typeof v}`,
          );
      } else {
        if (v === null) next.push(null);
        else if (Array.isArray(v)) next.push(v[step.index] ?? null);
        else throw new PlexusError('INVALID_PARAMS', `cannot take [${step.index}] of ${typeof v}`);
      }
    }
    current = next;
  }
  return current;
}

function clip(text: string): string {
  const flat = text.replace(/[\r\n\t]+/g, ' ');
  return flat.length > TABLE_CELL_LIMIT ? `${flat.slice(0, TABLE_CELL_LIMIT - 1)}…` : flat;
}

/**
 * A text table of `rows` (objects; other items become a `value` column), columns in order of
 * first appearance unless `columns` names them; `undefined` when `rows` is not a list.
 */
export function renderTable(rows: JsonValue, columns?: readonly string[]): string | undefined {
  if (!Array.isArray(rows)) return undefined;
  const records = rows.map((r) => (isJsonObject(r) ? r : { value: r }));
  const names = columns ?? [...new Set(records.flatMap((r) => Object.keys(r)))];
  if (names.length === 0) return `(${rows.length} row${rows.length === 1 ? '' : 's'})\n`;
  const cells = records.map((r) => names.map((n) => clip(cellText(r[n]))));
  const widths = names.map((n, i) => Math.max(n.length, ...cells.map((row) => (row[i] ?? '').length)));
  const line = (row: readonly string[]): string =>
    row
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(names), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n') + '\n';
}

/** What {@link renderOutput} decided. */
export interface RenderedOutput {
  /** What to print on stdout. */
  readonly text: string;
  /** A note for stderr (a hint that did not fit the output), if any. */
  readonly warning?: string;
}

function hintOf(hints: ProjectionHints, key: string): Readonly<Record<string, unknown>> | undefined {
  return hints[key];
}

/**
 * The text `plexus call` prints for a result under the verb's hints: `cli:table` (when the
 * output, or what its `jq` selects, is a list; preferred over `cli:json` when stdout is a
 * terminal), else `cli:json` (one JSON text per line), else the result as indented JSON.
 */
export function renderOutput(
  result: JsonValue,
  hints: ProjectionHints,
  stdoutIsTTY: boolean,
): RenderedOutput {
  const table = hintOf(hints, CLI_PROJECTIONS.table);
  const json = hintOf(hints, CLI_PROJECTIONS.json);
  const plain = `${JSON.stringify(result, null, 2)}\n`;
  let warning: string | undefined;
  if (table !== undefined && (json === undefined || stdoutIsTTY)) {
    try {
      const rows = typeof table['jq'] === 'string' ? selectJq(result, table['jq']) : [result];
      const columns = Array.isArray(table['columns'])
        ? table['columns'].filter((c): c is string => typeof c === 'string')
        : undefined;
      const text =
        rows.length === 1 ? renderTable(rows[0] as JsonValue, columns) : renderTable(rows, columns);
      if (text !== undefined) return { text };
      warning = 'cli:table: the output is not a list; printing it as JSON';
    } catch (error) {
      warning = `cli:table: ${(error as Error).message}; printing the whole output`;
    }
  }
  if (json !== undefined) {
    try {
      const selected = typeof json['jq'] === 'string' ? selectJq(result, json['jq']) : [result];
      return {
        text: selected.map((v) => `${JSON.stringify(v)}\n`).join(''),
        ...(warning === undefined ? {} : { warning }),
      };
    } catch (error) {
      return {
        text: `${JSON.stringify(result)}\n`,
        warning: `cli:json: ${(error as Error).message}; printing the whole output`,
      };
    }
  }
  return warning === undefined ? { text: plain } : { text: plain, warning };
}
