/**
 * `plexus validate [--format auto|emergence|esrp-request|esrp-response|jsonrpc|nova|agentese] [FILE]`:
 * prints `valid <format>`, or every problem with its JSON pointer and exits 1.
 */
import { Option, type Command } from 'commander';
import { PlexusError } from '../../core/errors.js';
import { formatProblem } from '../../core/problem.js';
import { WIRE_FORMATS, type WireFormat } from '../../wire/codec.js';
import { detectFormat } from '../../wire/detect.js';
import { parseWireText, validateWire } from '../../wire/registry.js';
import { readInput, type CliIo } from '../io.js';
import type { CommandOutcome } from '../main.js';

/** The result of validating one document. */
export interface ValidationReport {
  readonly format: WireFormat;
  readonly problems: readonly string[];
}

/**
 * Validates wire `text` as `format`, or as the detected format for `auto`.
 * @throws PlexusError `PARSE_ERROR` for text that is not JSON, `INVALID_REQUEST` when the
 *   format cannot be detected.
 */
export function validateText(text: string, format: WireFormat | 'auto'): ValidationReport {
  const value = parseWireText(text, format === 'auto' ? undefined : format);
  const chosen = format === 'auto' ? detectFormat(value) : format;
  if (chosen === undefined) {
    throw new PlexusError(
      'INVALID_REQUEST',
      `cannot tell which format this is; name it with --format (${WIRE_FORMATS.join(', ')})`,
    );
  }
  // ESRP judges numbers on their source text: re-read losslessly once the format is known.
  const typed = format === 'auto' && chosen.startsWith('esrp') ? parseWireText(text, chosen) : value;
  return { format: chosen, problems: validateWire(typed, chosen).map(formatProblem) };
}

/** Adds `validate` to the program. */
export function registerValidate(program: Command, io: CliIo, outcome: CommandOutcome): void {
  program
    .command('validate')
    .description('check a message against its protocol; prints "valid <format>" or every problem')
    .addOption(
      new Option('-f, --format <format>', 'the wire format')
        .choices(['auto', ...WIRE_FORMATS])
        .default('auto'),
    )
    .argument('[file]', 'the message to check; - or none reads stdin')
    .action(async (file: string | undefined, opts: { format: WireFormat | 'auto' }) => {
      const report = validateText(await readInput(io, file), opts.format);
      if (report.problems.length === 0) {
        io.stdout(`valid ${report.format}\n`);
        return;
      }
      io.stdout(`invalid ${report.format}: ${report.problems.length} problem(s)\n`);
      for (const line of report.problems) io.stdout(`  ${line}\n`);
      outcome.exitCode = 1;
    });
}
