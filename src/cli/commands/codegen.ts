/**
 * `plexus codegen [MANIFEST] --lang typescript [--out FILE]` (seed 002 §12.1): generates the
 * manifest's types and a typed client. A manifest with errors generates nothing: its
 * problems are printed as by `plexus lint` and the exit code is 1.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { PlexusError } from '../../core/errors.js';
import {
  countProblems,
  formatManifestProblem,
  generateTypeScript,
} from '../../wire/agentese/manifest/index.js';
import { fileError, type CliIo } from '../io.js';
import type { CommandOutcome } from '../main.js';
import { findManifest, readManifest } from './lint.js';

/** The languages `plexus codegen` writes. */
export const CODEGEN_LANGUAGES = ['typescript'] as const;

/** Options of `plexus codegen`. */
export interface CodegenOptions {
  readonly lang: (typeof CODEGEN_LANGUAGES)[number];
  readonly out?: string;
}

/** Runs `plexus codegen`; returns the exit code. */
export async function runCodegen(
  io: CliIo,
  fileArg: string | undefined,
  opts: CodegenOptions,
): Promise<number> {
  const file = await findManifest(io, fileArg);
  const load = await readManifest(io, file);
  const { errors, warnings } = countProblems(load.problems);
  if (errors > 0) {
    for (const p of load.problems) io.stderr(`${formatManifestProblem(p)}\n`);
    io.stderr(`${file}: ${errors} error${errors === 1 ? '' : 's'}; nothing generated\n`);
    return 1;
  }
  for (const p of load.problems) io.stderr(`${formatManifestProblem(p)}\n`);
  const code = generateTypeScript(load.manifest, { sourceName: file });
  if (opts.out === undefined || opts.out === '-') {
    io.stdout(code);
    return 0;
  }
  const target = resolve(io.cwd, opts.out);
  try {
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, code, 'utf8');
  } catch (cause) {
    const error = fileError(opts.out, cause);
    throw new PlexusError(error.code, error.message.replace('cannot read', 'cannot write'), { cause });
  }
  const m = load.manifest;
  io.stdout(
    `wrote ${opts.out}: ${Object.keys(m.types).length} types, ${m.verbs.length} eras (${opts.lang}, ${warnings} warning${warnings === 1 ? '' : 's'})\n`,
  );
  return 0;
}

/** Adds `codegen` to the program. */
export function registerCodegen(program: Command, io: CliIo, outcome: CommandOutcome): void {
  program
    .command('codegen')
    .description('generate types and a typed client from a verb manifest')
    .argument('[manifest]', 'the manifest; default plexus.manifest.yaml or agentese.manifest.yaml here')
    .addOption(
      new Option('--lang <lang>', 'the language to write').choices(CODEGEN_LANGUAGES).default('typescript'),
    )
    .option('-o, --out <file>', 'where to write; - or none writes to stdout')
    .action(async (file: string | undefined, opts: CodegenOptions) => {
      outcome.exitCode = await runCodegen(io, file, opts);
    });
}
