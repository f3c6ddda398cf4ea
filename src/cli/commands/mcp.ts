/**
 * `plexus mcp [--node URL] [--token TOKEN] | --agent FILE…`: an MCP server on stdin/stdout
 * for MCP hosts (Claude Desktop, IDEs) to launch (issue 13 item 2, docs/faces/mcp.md).
 *
 * With `--node` (default `$PLEXUS_NODE`, else http://127.0.0.1:3100) it forwards to that
 * running node's Streamable HTTP face at `URL/mcp`, with the bearer token of `--token` or
 * `$PLEXUS_TOKEN`. With `--agent FILE` (repeatable) it first starts a node in this process
 * hosting those agent modules (`../mcp-agent-node.ts`) and forwards to it. Either way one
 * forwarder (`../mcp-forwarder.ts`) does the work, and it runs until stdin closes (or
 * SIGTERM/SIGINT). Stdout carries MCP frames only: every other write goes to stderr.
 */
import { resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { Command } from 'commander';
import { PlexusError } from '../../core/errors.js';
import { cliLogger } from '../cli-logger.js';
import type { CliIo } from '../io.js';
import type { AgentNode } from '../mcp-agent-node.js';
import { nodeTarget } from '../node-client.js';
import { shutdownOnSignals } from '../signals.js';
import { guardStdout } from '../stdout-guard.js';

/** The flags of `plexus mcp`. */
export interface McpOptions {
  readonly node?: string;
  readonly token?: string;
  readonly agent?: readonly string[];
  readonly verbose?: boolean;
}

/** The streams the MCP server speaks on. */
export interface McpStreams {
  readonly stdin: Readable;
  /** Where MCP frames go (the real stdout). */
  readonly frames: Writable;
}

const CLIENT_INFO = { name: 'plexus-mcp', version: '0.1.0' };

/** Resolves when `stdin` has ended or closed, or failed. */
function closed(stdin: Readable): Promise<string> {
  return new Promise((done) => {
    const end = (): void => {
      done('stdin closed');
    };
    stdin.once('end', end);
    stdin.once('close', end);
    stdin.once('error', end);
  });
}

/**
 * Serves MCP on `streams` until stdin closes or `stop` resolves, forwarding to the node of
 * `opts` (or to an in-process node hosting `opts.agent`).
 *
 * @throws PlexusError for bad flags, an agent module that cannot be loaded, or a node that
 *   cannot be reached (naming its URL).
 */
export async function runMcp(
  io: CliIo,
  opts: McpOptions,
  streams: McpStreams,
  stop: Promise<string>,
): Promise<void> {
  const agents = (opts.agent ?? []).map((file) => resolve(io.cwd, file));
  if (agents.length > 0 && (opts.node !== undefined || opts.token !== undefined)) {
    throw new PlexusError(
      'INVALID_PARAMS',
      '--agent hosts the agents in this process; it cannot be combined with --node or --token',
    );
  }
  const say = (text: string): void => {
    io.stderr(`plexus mcp: ${text}\n`);
  };
  // The MCP SDK, and the node when agents are hosted here, load only when this command runs:
  // every other command starts without them.
  const [{ StdioServerTransport }, { createMcpForwarder }, { connectMcpUpstream }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/stdio.js'),
    import('../mcp-forwarder.js'),
    import('../mcp-upstream.js'),
  ]);
  let hosted: AgentNode | undefined;
  if (agents.length > 0) {
    const { startAgentNode } = await import('../mcp-agent-node.js');
    hosted = await startAgentNode(agents, cliLogger(io, opts.verbose === true));
  }
  try {
    const target = hosted?.target ?? nodeTarget(opts);
    const upstream = await connectMcpUpstream(target, CLIENT_INFO);
    let stopping = false;
    upstream.client.onerror = (error) => {
      if (!stopping) say(`the node's MCP face at ${upstream.url}: ${error.message}`);
    };
    const server = createMcpForwarder({ upstream: upstream.client, upstreamUrl: upstream.url });
    server.onerror = (error) => {
      say(`stdio: ${error.message}`);
    };
    const ended = closed(streams.stdin);
    await server.connect(new StdioServerTransport(streams.stdin, streams.frames));
    say(
      hosted === undefined
        ? `serving MCP on stdio, forwarding to ${upstream.url}`
        : `serving MCP on stdio for the agents ${hosted.agents.map((a) => a.spec.id).join(', ')} (in-process node at ${upstream.url})`,
    );
    const why = await Promise.race([ended, stop]);
    stopping = true;
    if (opts.verbose === true) say(`${why}: stopping`);
    await server.close().catch(() => undefined);
    await upstream.close().catch(() => undefined);
  } finally {
    await hosted?.stop();
  }
}

/** Adds `mcp` to the program. */
export function registerMcp(program: Command, io: CliIo): void {
  program
    .command('mcp')
    .description('an MCP server on stdin/stdout for MCP hosts: forwards to a node, or hosts agent modules')
    .option('-n, --node <url>', 'the node to forward to (default $PLEXUS_NODE or http://127.0.0.1:3100)')
    .option('-t, --token <token>', 'bearer token or API key for the node (default $PLEXUS_TOKEN)')
    .option(
      '--agent <file>',
      'host the SDK agents this ES module exports in-process, no node needed (repeatable)',
      (file: string, files: string[]) => [...files, file],
      [] as string[],
    )
    .option('-v, --verbose', 'log node events on stderr')
    .action(async (opts: McpOptions) => {
      const guard = guardStdout();
      const shutdown = shutdownOnSignals();
      try {
        await runMcp(io, opts, { stdin: process.stdin, frames: guard.frames }, shutdown.requested);
      } finally {
        shutdown.dispose();
        process.stdin.destroy();
        await new Promise<void>((done) => guard.frames.end(done));
        guard.restore();
      }
    });
}
