/**
 * Keeps a process's standard output for one writer: `plexus mcp` speaks MCP frames on stdout,
 * so anything else that writes there — a `console.log` in a user's agent module, a library's
 * banner — would corrupt the stream a host reads. The guard sends every other write to
 * stderr and hands the one writer a stream of its own onto the real stdout.
 */
import { Writable } from 'node:stream';

/** A guarded stdout. */
export interface StdoutGuard {
  /** The only way left onto the real stdout. */
  readonly frames: Writable;
  /** Puts `stdout.write` back as it was. */
  restore(): void;
}

/**
 * Redirects `stdout.write` to `stderr` and returns a stream writing to the real `stdout`.
 * Backpressure is kept: a frame's write completes when the real stdout has taken it.
 */
export function guardStdout(
  stdout: NodeJS.WriteStream = process.stdout,
  stderr: NodeJS.WriteStream = process.stderr,
): StdoutGuard {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- put back as is by restore()
  const original = stdout.write;
  const realWrite = (chunk: Buffer | string, done: (error?: Error | null) => void): boolean =>
    original.call(stdout, chunk, 'utf8', done);
  const frames = new Writable({
    write(chunk: Buffer | string, _encoding, done): void {
      realWrite(chunk, (error) => {
        done(error ?? null);
      });
    },
  });
  stdout.write = stderr.write.bind(stderr);
  return {
    frames,
    restore(): void {
      stdout.write = original;
    },
  };
}
