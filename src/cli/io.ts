/**
 * What a CLI command may touch of the outside world: standard streams and files. Commands
 * receive a {@link CliIo} so tests can run them in-process and read what they printed.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { PlexusError } from '../core/errors.js';

/** The streams and files a command uses. */
export interface CliIo {
  /** Writes to standard output, as is (no newline added). */
  readonly stdout: (text: string) => void;
  /** Writes to standard error, as is (no newline added). */
  readonly stderr: (text: string) => void;
  /** Reads all of standard input as UTF-8. */
  readonly readStdin: () => Promise<string>;
  /** The directory relative paths are resolved against. */
  readonly cwd: string;
}

/** The real process streams. */
export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    cwd: process.cwd(),
  };
}

/** An in-memory {@link CliIo} for tests: what was printed, and a fixed stdin. */
export interface CapturedIo extends CliIo {
  /** Everything written to stdout. */
  out(): string;
  /** Everything written to stderr. */
  err(): string;
}

/** Creates a {@link CapturedIo} whose stdin holds `stdin`. */
export function capturedIo(stdin = '', cwd = process.cwd()): CapturedIo {
  let out = '';
  let err = '';
  return {
    stdout: (text) => {
      out += text;
    },
    stderr: (text) => {
      err += text;
    },
    readStdin: () => Promise.resolve(stdin),
    cwd,
    out: () => out,
    err: () => err,
  };
}

/**
 * Reads the input named on the command line: a file path, or standard input for `-` or no
 * path at all.
 */
export async function readInput(io: CliIo, file: string | undefined): Promise<string> {
  if (file === undefined || file === '-') return io.readStdin();
  try {
    return await readFile(resolve(io.cwd, file), 'utf8');
  } catch (cause) {
    throw fileError(file, cause);
  }
}

/** Turns a file-system error into a user error that names the file and the reason. */
export function fileError(file: string, cause: unknown): PlexusError {
  const code = (cause as { code?: unknown } | null)?.code;
  const reason =
    code === 'ENOENT'
      ? 'no such file'
      : code === 'EACCES' || code === 'EPERM'
        ? 'permission denied'
        : code === 'EISDIR'
          ? 'it is a directory'
          : cause instanceof Error
            ? cause.message
            : String(cause);
  return new PlexusError(
    code === 'ENOENT' ? 'NOT_FOUND' : 'INVALID_REQUEST',
    `cannot read ${file}: ${reason}`,
    { cause },
  );
}
