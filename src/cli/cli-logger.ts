/**
 * A node logger for the command line: warnings and errors on stderr, info with --verbose.
 * An entry's `stack` field (a crashed handler's stack trace) is printed below its line,
 * indented, as the stack reads; an `Error` field shows its message.
 */
import type { Logger } from '../core/logger.js';
import type { CliIo } from './io.js';

function line(level: string, obj: object, msg: string | undefined): string {
  const { stack, ...others } = obj as { stack?: unknown };
  const rest = typeof stack === 'string' ? others : obj;
  const fields =
    Object.keys(rest).length === 0
      ? ''
      : ` ${JSON.stringify(rest, (_key, value: unknown) => (value instanceof Error ? value.message : value))}`;
  const trace =
    typeof stack === 'string' && stack !== ''
      ? stack
          .split('\n')
          .map((l) => `${l.trim().startsWith('at ') ? '      ' : '    '}${l.trim()}\n`)
          .join('')
      : '';
  return `plexus: ${level}: ${msg ?? ''}${fields}\n${trace}`;
}

/** A {@link Logger} writing one line per entry to `io.stderr` (and a stack trace below it). */
export function cliLogger(io: CliIo, verbose: boolean): Logger {
  return {
    info: (obj, msg) => {
      if (verbose) io.stderr(line('info', obj, msg));
    },
    warn: (obj, msg) => {
      io.stderr(line('warn', obj, msg));
    },
    error: (obj, msg) => {
      io.stderr(line('error', obj, msg));
    },
  };
}
