// Runs the `plexus` command in-process with captured streams.
import { capturedIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';

export interface CliRun {
  code: number;
  out: string;
  err: string;
}

export async function runCli(args: string[], stdin = '', cwd?: string): Promise<CliRun> {
  const io = capturedIo(stdin, cwd);
  const code = await main(args, io);
  return { code, out: io.out(), err: io.err() };
}
