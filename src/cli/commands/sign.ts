/**
 * `plexus sign --key FILE --domain DOMAIN [FILE]` and `plexus verify [--domain DOMAIN] [FILE]`:
 * signed envelopes (D3) on the command line.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { isJsonObject } from '../../core/json.js';
import { PlexusError } from '../../core/errors.js';
import { parseJson } from '../../core/parse-json.js';
import { envelopeVerifier, readKeyFile, signEnvelope } from '../../security/index.js';
import { readInput, type CliIo } from '../io.js';
import type { CommandOutcome } from '../main.js';

/** Adds `sign` to the program. */
export function registerSign(program: Command, io: CliIo): void {
  program
    .command('sign')
    .description('wrap a JSON document in a signed envelope (D3) whose d is the document')
    .requiredOption('-k, --key <file>', 'the key file to sign with')
    .requiredOption(
      '-d, --domain <domain>',
      'the domain: a gossip topic, or plexus/rpc/<verb> for a direct call',
    )
    .argument('[file]', 'the document; - or none reads stdin')
    .action(async (file: string | undefined, opts: { key: string; domain: string }) => {
      const { key } = await readKeyFile(resolve(io.cwd, opts.key));
      const payload = parseJson(await readInput(io, file));
      io.stdout(`${JSON.stringify(signEnvelope(payload, { key, domain: opts.domain }))}\n`);
    });
}

/** Adds `verify` to the program. */
export function registerVerify(program: Command, io: CliIo, outcome: CommandOutcome): void {
  program
    .command('verify')
    .description('check a signed envelope; prints "ok <from>" or why it fails')
    .option('-d, --domain <domain>', 'the domain it must be signed for (default: the envelope\'s own "dom")')
    .argument('[file]', 'the signed envelope; - or none reads stdin')
    .action(async (file: string | undefined, opts: { domain?: string }) => {
      const value = parseJson(await readInput(io, file));
      const domain =
        opts.domain ?? (isJsonObject(value) && typeof value.dom === 'string' ? value.dom : undefined);
      if (domain === undefined) {
        throw new PlexusError(
          'INVALID_REQUEST',
          'the envelope does not name its domain ("dom"); pass --domain',
        );
      }
      try {
        const verified = envelopeVerifier().verify(value, domain);
        io.stdout(`ok ${verified.envelope.from}\n`);
      } catch (error) {
        if (!(error instanceof PlexusError)) throw error;
        io.stdout(`invalid: ${error.code}: ${error.message}\n`);
        outcome.exitCode = 1;
      }
    });
}
