/**
 * `plexus hash [--profile jcs|esrp] [--payload] [FILE]`: prints the SHA-256 (64 hex
 * characters) of a document's canonical form, or with `--payload` the ESRP `payload_hash`.
 */
import type { Command } from 'commander';
import { payloadHashText } from '../../core/esrp/index.js';
import { sha256Hex } from '../../core/hash.js';
import { readInput, type CliIo } from '../io.js';
import { canonicalText, profileOption, type ProfileName } from './canonicalize.js';

/** Adds `hash` to the program. */
export function registerHash(program: Command, io: CliIo): void {
  program
    .command('hash')
    .description('print the SHA-256 of the canonical form, or the ESRP payload_hash with --payload')
    .addOption(profileOption())
    .option('--payload', 'the ESRP payload_hash of a request (target, inputs, params)', false)
    .argument('[file]', 'the document; - or none reads stdin')
    .action(async (file: string | undefined, opts: { profile: ProfileName; payload: boolean }) => {
      const text = await readInput(io, file);
      io.stdout(`${opts.payload ? payloadHashText(text) : sha256Hex(canonicalText(text, opts.profile))}\n`);
    });
}
