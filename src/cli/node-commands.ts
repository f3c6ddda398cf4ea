/** The commands that run or talk to a node: start, call, jobs, agents, mesh, token, replay, mcp. */
import type { Command } from 'commander';
import { registerAgents } from './commands/agents.js';
import { registerCall } from './commands/call.js';
import { registerJobs } from './commands/jobs.js';
import { registerMesh } from './commands/mesh.js';
import { registerMcp } from './commands/mcp.js';
import { registerReplay } from './commands/replay.js';
import { registerStart } from './commands/start.js';
import { registerToken } from './commands/token.js';
import type { CliIo } from './io.js';
import type { CommandOutcome } from './main.js';

/** Registers `start`, `call`, `jobs`, `agents`, `mesh`, `token`, `replay` and `mcp` on `program`. */
export function registerNodeCommands(program: Command, io: CliIo, outcome: CommandOutcome): void {
  registerStart(program, io);
  registerCall(program, io);
  registerJobs(program, io);
  registerAgents(program, io);
  registerMesh(program, io);
  registerToken(program, io);
  registerReplay(program, io, outcome);
  registerMcp(program, io);
}
