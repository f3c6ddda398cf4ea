/** Every `plexus` command, registered on one program. */
import type { Command } from 'commander';
import type { CliIo } from '../io.js';
import type { CommandOutcome } from '../main.js';
import { registerNodeCommands } from '../node-commands.js';
import { registerCanonicalize } from './canonicalize.js';
import { registerCodegen } from './codegen.js';
import { registerConfig } from './config.js';
import { registerDemo } from './demo.js';
import { registerHash } from './hash.js';
import { registerKeys } from './keys.js';
import { registerLint } from './lint.js';
import { registerMock } from './mock.js';
import { registerSign, registerVerify } from './sign.js';
import { registerTrace } from './trace.js';
import { registerUcan } from './ucan.js';
import { registerValidate } from './validate.js';

/** Registers every command on `program`. */
export function registerCommands(program: Command, io: CliIo, outcome: CommandOutcome): void {
  registerValidate(program, io, outcome);
  registerCanonicalize(program, io);
  registerHash(program, io);
  registerKeys(program, io);
  registerSign(program, io);
  registerVerify(program, io, outcome);
  registerDemo(program, io);
  registerNodeCommands(program, io, outcome);
  registerConfig(program, io);
  registerLint(program, io, outcome);
  registerCodegen(program, io, outcome);
  registerMock(program, io, outcome);
  registerTrace(program, io);
  registerUcan(program, io, outcome);
}
