/** A node logger for the command line: warnings and errors on stderr, info with --verbose. */
import type { FaceLogger } from '../transports/face-components.js';
import type { CliIo } from './io.js';

function line(level: string, obj: object, msg: string | undefined): string {
  const fields =
    Object.keys(obj).length === 0
      ? ''
      : ` ${JSON.stringify(obj, (_key, value: unknown) => (value instanceof Error ? value.message : value))}`;
  return `plexus: ${level}: ${msg ?? ''}${fields}\n`;
}

/** A {@link FaceLogger} writing one line per entry to `io.stderr`. */
export function cliLogger(io: CliIo, verbose: boolean): FaceLogger {
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
