/**
 * The `plexus` command: parses the command line, runs one command, and turns its outcome
 * into an exit code. Exit codes: 0 success, 1 a user error (bad input, a file that cannot
 * be read, a check that failed), 2 an internal error (a bug: the stack is printed).
 */
import { Command, CommanderError } from 'commander';
import { PlexusError } from '../core/errors.js';
import { processIo, type CliIo } from './io.js';
import { registerCommands } from './commands/index.js';

/** Exit code of a successful run. */
export const EXIT_OK = 0;
/** Exit code of a user error: bad input, an unreadable file, a failed check. */
export const EXIT_USER_ERROR = 1;
/** Exit code of an internal error (a bug in Plexus). */
export const EXIT_INTERNAL_ERROR = 2;

/** What a command's action reports back: the exit code it wants. */
export interface CommandOutcome {
  exitCode: number;
}

/** Builds the command tree, writing through `io`. */
export function buildProgram(io: CliIo, outcome: CommandOutcome): Command {
  const program = new Command('plexus')
    .description('Plexus: one agent mesh for the Emergence, ESRP, AGENTESE, Hyperspace and Nova26 protocols.')
    .version('0.1.0')
    .configureOutput({
      writeOut: (s) => {
        io.stdout(s);
      },
      writeErr: (s) => {
        io.stderr(s);
      },
    })
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');
  registerCommands(program, io, outcome);
  return program;
}

/**
 * Runs the `plexus` command with `argv` (the arguments after the program name) and returns
 * the exit code. Never throws: every failure becomes a message on stderr and an exit code.
 */
export async function main(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const outcome: CommandOutcome = { exitCode: EXIT_OK };
  const program = buildProgram(io, outcome);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return outcome.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit through here with code 0; usage errors were already printed.
      return error.exitCode === 0 ? EXIT_OK : EXIT_USER_ERROR;
    }
    if (error instanceof PlexusError) {
      io.stderr(`plexus: ${error.message}\n`);
      return EXIT_USER_ERROR;
    }
    const stack = error instanceof Error ? (error.stack ?? error.message) : String(error);
    io.stderr(`plexus: internal error (please report it): ${stack}\n`);
    return EXIT_INTERNAL_ERROR;
  }
}
