/**
 * `plexus canonicalize [--profile jcs|esrp] [FILE]`: prints the canonical bytes of a JSON
 * document with no trailing newline. `hash` shares the canonical form.
 */
import { Option, type Command } from 'commander';
import { canonicalizeJcs } from '../../core/canonical/index.js';
import { canonicalizeEsrpDocumentText } from '../../core/esrp/index.js';
import { parseJson } from '../../core/parse-json.js';
import { readInput, type CliIo } from '../io.js';

/** The canonical JSON profiles of D1. */
export type ProfileName = 'jcs' | 'esrp';

/**
 * The canonical text of JSON `text` under `profile`. The `esrp` profile reads numbers from
 * their source text and applies the ESRP typed parse to an ESRP request, as the reference does.
 * @throws PlexusError `PARSE_ERROR` or `INVALID_PARAMS` (naming the offending value).
 */
export function canonicalText(text: string, profile: ProfileName): string {
  return profile === 'esrp' ? canonicalizeEsrpDocumentText(text) : canonicalizeJcs(parseJson(text));
}

/** The `--profile` option shared by `canonicalize` and `hash`. */
export function profileOption(): Option {
  return new Option('-p, --profile <profile>', 'canonical JSON profile (D1)')
    .choices(['jcs', 'esrp'])
    .default('jcs');
}

/** Adds `canonicalize` to the program. */
export function registerCanonicalize(program: Command, io: CliIo): void {
  program
    .command('canonicalize')
    .description('print the canonical JSON of a document (no trailing newline)')
    .addOption(profileOption())
    .argument('[file]', 'the document; - or none reads stdin')
    .action(async (file: string | undefined, opts: { profile: ProfileName }) => {
      io.stdout(canonicalText(await readInput(io, file), opts.profile));
    });
}
