/**
 * `plexus agents ls [--capability VERB] [--origin local|remote]` and `plexus agents show ID`:
 * the agent cards a running node knows (its discovery face, `GET /agents`).
 */
import type { Command } from 'commander';
import { PlexusError } from '../../core/errors.js';
import type { AgentCard } from '../../core/records/agent-card.js';
import type { CliIo } from '../io.js';
import { nodeJson, nodeTarget } from '../node-client.js';

interface AgentsOptions {
  readonly node?: string;
  readonly token?: string;
  readonly json: boolean;
  readonly capability?: string;
  readonly origin?: string;
}

function remote(command: Command): Command {
  return command
    .option('-n, --node <url>', 'the node (default $PLEXUS_NODE or http://127.0.0.1:3100)')
    .option('-t, --token <token>', 'bearer token or API key (default $PLEXUS_TOKEN)')
    .option('--json', 'print JSON', false);
}

/** Adds `agents ls|show` to the program. */
export function registerAgents(program: Command, io: CliIo): void {
  const agents = program.command('agents').description('the agents a running node knows');
  remote(agents.command('ls').description('list agent cards (GET /agents)'))
    .option('--capability <verb>', 'only agents offering this verb')
    .option('--origin <origin>', 'only local or remote agents')
    .action(async (opts: AgentsOptions) => {
      const query = new URLSearchParams();
      if (opts.capability !== undefined) query.set('capability', opts.capability);
      if (opts.origin !== undefined) query.set('origin', opts.origin);
      const suffix = query.size === 0 ? '' : `?${query.toString()}`;
      const body = await nodeJson(nodeTarget(opts), `/agents${suffix}`, 'list agents');
      const list = (body as { agents?: unknown } | undefined)?.agents;
      if (!Array.isArray(list))
        throw new PlexusError('INTERNAL', 'the node answered GET /agents without an agents list');
      const cards = list as AgentCard[];
      if (opts.json) {
        io.stdout(`${JSON.stringify(cards)}\n`);
        return;
      }
      for (const card of cards) {
        const verbs = card.capabilities.map((c) => c.verb).join(', ') || '(no verbs)';
        io.stdout(`${card.id.padEnd(16)} ${(card.origin ?? 'local').padEnd(6)} ${card.name}: ${verbs}\n`);
      }
      io.stderr(`${cards.length} agent${cards.length === 1 ? '' : 's'}\n`);
    });
  remote(
    agents
      .command('show')
      .description("show an agent's card (GET /agents/{id})")
      .argument('<id>', 'the agent id'),
  ).action(async (id: string, opts: AgentsOptions) => {
    const card = await nodeJson(nodeTarget(opts), `/agents/${encodeURIComponent(id)}`, `show agent ${id}`);
    io.stdout(opts.json ? `${JSON.stringify(card)}\n` : `${JSON.stringify(card, null, 2)}\n`);
  });
}
