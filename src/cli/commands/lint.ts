/**
 * `plexus lint [FILE] [--against OLD] [--pipeline a,b,c] [--json]` (seed 002 §12.1): checks a
 * verb manifest and prints every problem as `file:line:column: severity: message`, then a
 * summary line; exits 1 when there is any error. `--against` also compares with an older
 * manifest (a breaking change inside an era is an error); `--pipeline` prints the composed
 * effects and capabilities of a pipeline of verbs.
 */
import { access } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { PlexusError } from '../../core/errors.js';
import { EFFECT_NAMES } from '../../core/records/effects.js';
import {
  MANIFEST_FILE_NAMES,
  composePipeline,
  countProblems,
  diffManifests,
  formatManifestProblem,
  loadManifest,
} from '../../wire/agentese/manifest/index.js';
import type {
  EraChange,
  ManifestLoad,
  ManifestProblem,
  PipelineResult,
} from '../../wire/agentese/manifest/index.js';
import { readInput, type CliIo } from '../io.js';
import type { CommandOutcome } from '../main.js';

/** Options of `plexus lint`. */
export interface LintOptions {
  readonly against?: string;
  readonly pipeline?: string;
  readonly json?: boolean;
}

/**
 * The manifest file to read: `file` when given, else the first of
 * `plexus.manifest.yaml`, `agentese.manifest.yaml` in the working directory.
 * @throws PlexusError `NOT_FOUND` when none is given and none exists.
 */
export async function findManifest(io: CliIo, file: string | undefined): Promise<string> {
  if (file !== undefined) return file;
  for (const name of MANIFEST_FILE_NAMES) {
    try {
      await access(resolve(io.cwd, name));
      return name;
    } catch {
      // try the next name
    }
  }
  throw new PlexusError(
    'NOT_FOUND',
    `no manifest named here and none of ${MANIFEST_FILE_NAMES.join(', ')} in ${io.cwd}; name the file to check`,
  );
}

/** Reads and loads the manifest in `file` (problems carry `file` as given). */
export async function readManifest(io: CliIo, file: string): Promise<ManifestLoad> {
  return loadManifest(await readInput(io, file), file);
}

function changeLine(change: EraChange, fallbackFile: string): string {
  const where = change.location ?? { file: fallbackFile, line: 1, column: 1, pointer: '' };
  const pointer = where.pointer === '' ? '' : ` (${where.pointer})`;
  const head = `${where.file}:${where.line}:${where.column}`;
  return change.kind === 'breaking'
    ? `${head}: error: breaking change to ${change.era}: ${change.message}; publish breaking changes as a new era${pointer}`
    : `${head}: note: additive change to ${change.era}: ${change.message}${pointer}`;
}

function pipelineLines(steps: readonly string[], result: PipelineResult): string[] {
  const lines = [`pipeline ${steps.join(' >> ')}`];
  for (const e of result.errors) lines.push(`  error: ${e}`);
  for (const w of result.warnings) lines.push(`  warning: ${w}`);
  const s = result.summary;
  if (s === undefined) return lines;
  lines.push(`  eras: ${s.steps.map((v) => `${v.name}@${String(v.version)}`).join(' >> ')}`);
  lines.push(`  category: ${s.category}${s.deterministic ? ', deterministic' : ''}`);
  const effects = EFFECT_NAMES.filter((e) => s.effects[e] !== undefined);
  lines.push(`  effects:${effects.length === 0 ? ' none' : ''}`);
  for (const e of effects) lines.push(`    ${e}: ${(s.effects[e] ?? []).join(', ')}`);
  lines.push(`  capabilities: ${s.capabilities.length === 0 ? 'none' : s.capabilities.join(', ')}`);
  return lines;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Runs `plexus lint`; returns the exit code. */
export async function runLint(io: CliIo, fileArg: string | undefined, opts: LintOptions): Promise<number> {
  const file = await findManifest(io, fileArg);
  const load = await readManifest(io, file);
  const problems: ManifestProblem[] = [...load.problems];
  const { errors: ownErrors } = countProblems(problems);
  let changes: EraChange[] = [];
  let againstNote: string | undefined;
  if (opts.against !== undefined) {
    const old = await readManifest(io, opts.against);
    problems.push(...old.problems.filter((p) => p.severity === 'error'));
    if (countProblems(old.problems).errors > 0 || ownErrors > 0) {
      againstNote = `not compared with ${opts.against}: fix the errors first`;
    } else {
      changes = diffManifests(old, load);
    }
  }
  const steps = opts.pipeline
    ?.split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const pipeline = steps === undefined ? undefined : composePipeline(load.manifest, steps);
  const breaking = changes.filter((c) => c.kind === 'breaking').length;
  const { errors, warnings } = countProblems(problems);
  const totalErrors = errors + breaking + (pipeline?.errors.length ?? 0);
  if (opts.json === true) {
    io.stdout(
      `${JSON.stringify({ file, ok: totalErrors === 0, problems, changes, ...(pipeline === undefined ? {} : { pipeline: { steps, ...pipeline } }) }, null, 2)}\n`,
    );
    return totalErrors === 0 ? 0 : 1;
  }
  for (const p of problems) io.stdout(`${formatManifestProblem(p)}\n`);
  for (const c of changes) io.stdout(`${changeLine(c, file)}\n`);
  if (againstNote !== undefined) io.stdout(`${againstNote}\n`);
  if (pipeline !== undefined && steps !== undefined)
    for (const line of pipelineLines(steps, pipeline)) io.stdout(`${line}\n`);
  const m = load.manifest;
  const verbs = new Set(m.verbs.map((v) => v.name)).size;
  const compared =
    opts.against === undefined || againstNote !== undefined
      ? ''
      : `; against ${opts.against}: ${plural(breaking, 'breaking change')}, ${plural(changes.length - breaking, 'additive change')}`;
  if (totalErrors === 0) {
    io.stdout(
      `${file}: ok — ${plural(m.verbs.length, 'era')} of ${plural(verbs, 'verb')}, ${plural(Object.keys(m.types).length, 'type')}, ${plural(warnings, 'warning')}${compared}\n`,
    );
    return 0;
  }
  io.stdout(`${file}: ${plural(totalErrors, 'error')}, ${plural(warnings, 'warning')}${compared}\n`);
  return 1;
}

/** Adds `lint` to the program. */
export function registerLint(program: Command, io: CliIo, outcome: CommandOutcome): void {
  program
    .command('lint')
    .description('check a verb manifest; prints every problem as file:line:column and exits 1 on any error')
    .argument('[file]', `the manifest; default ${MANIFEST_FILE_NAMES.join(' or ')} here`)
    .option('--against <old>', 'compare with an older manifest: breaking changes inside an era are errors')
    .option('--pipeline <verbs>', 'print the composed effects and capabilities of verbs a,b,c')
    .option('--json', 'print the report as JSON')
    .action(async (file: string | undefined, opts: LintOptions) => {
      outcome.exitCode = await runLint(io, file, opts);
    });
}
