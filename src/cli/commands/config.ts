/**
 * `plexus config schema`: prints the JSON Schema of `plexus.yaml` (from the zod schema the node
 * checks its configuration with), so editors can validate the file (docs/config.md).
 */
import type { Command } from 'commander';
import { nodeConfigJsonSchema } from '../../node/config-schema.js';
import type { CliIo } from '../io.js';

/** Adds `config` and its subcommand `schema` to the program. */
export function registerConfig(program: Command, io: CliIo): void {
  const config = program.command('config').description('the node configuration file, plexus.yaml');
  config
    .command('schema')
    .description('print the JSON Schema of plexus.yaml, for editors')
    .action(() => {
      io.stdout(`${JSON.stringify(nodeConfigJsonSchema(), null, 2)}\n`);
    });
}
