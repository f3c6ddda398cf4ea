/**
 * `plexus start [--config plexus.yaml] [--data DIR] [--port 3100] [--host 127.0.0.1] [--dev]
 * [--demo] [--memory] [--agent FILE]… [--drain-ms N] [--log-level L] [--log-format json|pretty]
 * [--verbose]`: runs a node until SIGTERM or SIGINT, then drains in-flight jobs (up to the
 * drain bound) and exits 0.
 *
 * The node's structured log (docs/observability.md, Logs) goes to stdout, after the banner:
 * JSON lines, or pino-pretty's text when stdout is a terminal (`--log-format` and `logging:`
 * in the configuration choose otherwise). Lines logged while the node starts are held until
 * the banner is printed, so the banner stays first.
 *
 * `--agent FILE` (repeatable; relative to the working directory) and `agents:` in the
 * configuration (relative to its file) name ES modules whose exported SDK agents the node
 * hosts from its first request on (`../agent-modules.ts`).
 *
 * The first line printed is `plexus node <did> listening on <url>`; with `--port 0` it names
 * the port actually bound, so scripts and tests can read it.
 */
import { access } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { PlexusError } from '../../core/errors.js';
import type { Node, NodeConfig, NodeInit } from '../../node/index.js';
import { DEFAULT_CONFIG_FILE, loadNodeConfig } from '../../node/config.js';
import { nodeInitFromConfig } from '../../node/node-init.js';
import { HYPERSPACE_PRIMITIVES } from '../../node/primitive-names.js';
import { hostedAgentDefinitions, loadAgentModules, type LoadedAgent } from '../agent-modules.js';
import { nodeLogger } from '../../node/node-logger.js';
import {
  LOG_FORMATS,
  LOG_LEVELS,
  isLogFormat,
  isLogLevel,
  type LogFormat,
  type LogLevel,
} from '../../observability/logging/log-options.js';
import type { CliIo } from '../io.js';
import { shutdownOnSignals } from '../signals.js';

/** The flags of `plexus start`. */
export interface StartOptions {
  readonly config?: string;
  readonly data?: string;
  readonly port?: string;
  readonly host?: string;
  readonly dev?: boolean;
  readonly demo?: boolean;
  readonly memory?: boolean;
  /** `--mesh`: run the libp2p mesh peer (the `mesh:` section, enabled). */
  readonly mesh?: boolean;
  readonly drainMs?: string;
  /** Same as `--log-level debug` (unless `--log-level` is given). */
  readonly verbose?: boolean;
  /** `--log-level trace|debug|info|warn|error|silent`. */
  readonly logLevel?: string;
  /** `--log-format json|pretty`. */
  readonly logFormat?: string;
  /** Agent modules (`--agent FILE`, repeatable). */
  readonly agent?: readonly string[];
}

function wholeNumber(flag: string, value: string, max: number): number {
  if (!/^\d+$/.test(value) || Number(value) > max) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `${flag} must be a whole number from 0 to ${max}, got ${JSON.stringify(value)}`,
    );
  }
  return Number(value);
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The configuration `start` runs with: `--config FILE` (which must exist), else
 * `./plexus.yaml` when present, else none.
 */
export async function startConfig(io: CliIo, config: string | undefined): Promise<NodeConfig> {
  if (config !== undefined) return loadNodeConfig(resolve(io.cwd, config));
  const fallback = resolve(io.cwd, DEFAULT_CONFIG_FILE);
  return (await exists(fallback)) ? loadNodeConfig(fallback) : {};
}

/** The node options of `start`: the configuration with the flags on top. */
export function startNodeInit(io: CliIo, config: NodeConfig, opts: StartOptions): NodeInit {
  const flags: { -readonly [K in keyof NodeInit]: NodeInit[K] } = {};
  if (opts.data !== undefined) flags.dataDir = resolve(io.cwd, opts.data);
  if (opts.port !== undefined) flags.port = wholeNumber('--port', opts.port, 65_535);
  if (opts.host !== undefined) flags.host = opts.host;
  if (opts.dev === true) flags.dev = true;
  if (opts.demo === true) flags.demo = true;
  if (opts.memory === true) flags.store = 'memory';
  if (opts.mesh === true) flags.mesh = { ...config.mesh, enabled: true };
  if (opts.drainMs !== undefined) flags.drainMs = wholeNumber('--drain-ms', opts.drainMs, 3_600_000);
  const init = nodeInitFromConfig(config, flags);
  return { ...init, dataDir: resolve(io.cwd, init.dataDir ?? '.plexus') };
}

/** The `--log-level` of `start` (`--verbose` is `debug`), checked. @throws PlexusError `INVALID_PARAMS`. */
export function startLogLevel(opts: StartOptions): LogLevel | undefined {
  if (opts.logLevel === undefined) return opts.verbose === true ? 'debug' : undefined;
  if (!isLogLevel(opts.logLevel)) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `--log-level must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(opts.logLevel)}`,
    );
  }
  return opts.logLevel;
}

/** The `--log-format` of `start`, checked. @throws PlexusError `INVALID_PARAMS`. */
export function startLogFormat(opts: StartOptions): LogFormat | undefined {
  if (opts.logFormat === undefined) return undefined;
  if (!isLogFormat(opts.logFormat)) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `--log-format must be ${LOG_FORMATS.join(' or ')}, got ${JSON.stringify(opts.logFormat)}`,
    );
  }
  return opts.logFormat;
}

/** The agent modules of `start`: the configuration's `agents`, then `--agent` flags (absolute). */
export function startAgentFiles(io: CliIo, config: NodeConfig, opts: StartOptions): string[] {
  return [...(config.agents ?? []), ...(opts.agent ?? [])].map((file) => resolve(io.cwd, file));
}

function agentsLine(agents: readonly LoadedAgent[]): string[] {
  return agents.map(
    (a, i) =>
      `${i === 0 ? '  agents  ' : '          '}${a.spec.id}: ${a.spec.verbs.map((v) => v.name).join(', ')} (${a.file})`,
  );
}

/**
 * Starts a node, prints where it listens, waits for `shutdown`, then stops it.
 *
 * @throws PlexusError for a bad configuration, an agent module that cannot be loaded, or when
 *   the node cannot start.
 */
export async function runStart(
  io: CliIo,
  opts: StartOptions,
  shutdown: Promise<string>,
  terminal: { readonly stdoutIsTTY: boolean } = { stdoutIsTTY: false },
): Promise<void> {
  const level = startLogLevel(opts);
  const format = startLogFormat(opts);
  const config = await startConfig(io, opts.config);
  const init = startNodeInit(io, config, opts);
  // Log lines wait for the banner (its first line names the URL scripts read), then flow.
  const held: string[] = [];
  let flowing = false;
  const flow = (): void => {
    flowing = true;
    for (const line of held.splice(0)) io.stdout(line);
  };
  const logger = nodeLogger({
    write: (line) => {
      if (flowing) io.stdout(line);
      else if (held.length < 10_000) held.push(line); // bounded: a start logs a few
    },
    ...(config.logging === undefined ? {} : { config: config.logging }),
    ...(level === undefined ? {} : { level }),
    ...(format === undefined ? {} : { format }),
    tty: terminal.stdoutIsTTY,
  });
  const loaded = await loadAgentModules(startAgentFiles(io, config, opts));
  const hosted = hostedAgentDefinitions(
    loaded.map((a) => a.spec),
    () => node,
  );
  // the node and its agents load only when a node starts: `plexus --help` stays quick (S13)
  const { createNode, DEMO_VERBS } = await import('../../node/index.js');
  const node: Node = createNode({
    ...init,
    agents: [...(init.agents ?? []), ...hosted],
    logger,
  });
  try {
    await node.start();
  } catch (error) {
    flow(); // what the node logged before it failed
    throw error;
  }
  const say = (text = ''): void => {
    io.stdout(`${text}\n`);
  };
  const ws = node.url.replace(/^http/, 'ws');
  say(`plexus node ${node.nodeId} listening on ${node.url}`);
  say(`  data    ${node.dataDir} (${init.store === 'memory' ? 'in-memory event log' : 'SQLite event log'})`);
  say(`  auth    ${node.auth.reason}`);
  if (node.auth.required) say(`          token: plexus token issue --data ${node.dataDir} --subject me`);
  say(`  faces   ESRP POST ${node.url}/v1/execute and /v1/jobs · Emergence POST ${node.url}/emergence`);
  say(`          discovery GET ${node.url}/agents · WebSocket JSON-RPC ${ws}/rpc · GET ${node.url}/healthz`);
  say(
    `          MCP (Streamable HTTP) ${node.url}/mcp · A2A card ${node.url}/.well-known/agent-card.json, JSON-RPC ${node.url}/a2a`,
  );
  for (const text of agentsLine(loaded)) say(text);
  const primitives = init.primitives ?? true;
  const hostedPrimitives = HYPERSPACE_PRIMITIVES.filter(
    (p) => primitives === true || (Array.isArray(primitives) && primitives.includes(p)),
  );
  if (hostedPrimitives.length > 0) {
    say(`  hyperspace primitives over ${ws}/rpc: ${hostedPrimitives.join(', ')}`);
    say(`          e.g. {"jsonrpc":"2.0","id":1,"method":"state.createSession","params":{"agentName":"me"}}`);
  }
  const demo = init.demo ?? false;
  const shown = DEMO_VERBS.filter((v) => demo === true || (Array.isArray(demo) && demo.includes(v.agent)));
  if (shown.length > 0) {
    say('  demo agents:');
    for (const v of shown) say(`    ${v.verb.padEnd(15)} ${v.summary}  e.g. ${JSON.stringify(v.example)}`);
    const example = shown.find((v) => v.verb === 'math.evaluate') ?? shown[0];
    if (example !== undefined) {
      say(
        `  try     plexus call ${example.verb} --node ${node.url} --data '${JSON.stringify(example.example)}'`,
      );
    }
  }
  say('press Ctrl-C to stop');
  flow();
  const signal = await shutdown;
  const drainMs = init.drainMs ?? 10_000;
  io.stderr(`plexus: ${signal}: stopping; draining in-flight jobs for up to ${drainMs} ms\n`);
  await node.stop({ drainMs });
  io.stderr('plexus: stopped\n');
}

/** Adds `start` to the program. */
export function registerStart(program: Command, io: CliIo): void {
  program
    .command('start')
    .description('run a Plexus node (HTTP, ESRP, Emergence, WebSocket JSON-RPC on one port) until SIGTERM')
    .option('-c, --config <file>', `the configuration file (default: ./${DEFAULT_CONFIG_FILE} when present)`)
    .option('--data <dir>', 'the data directory (key, event log, artifacts)', undefined)
    .option('-p, --port <port>', 'the port; 0 picks a free one (default 3100)')
    .option('--host <host>', 'the listen address; not loopback needs TLS (default 127.0.0.1)')
    .option('--dev', 'dev mode: on loopback, requests need no credentials')
    .option('--demo', 'register the demo agents (echo, summariser, evaluator, slow job)')
    .option('--memory', 'keep the event log in memory (nothing survives a restart)')
    .option('--mesh', 'run the libp2p mesh peer with the mesh: settings or their defaults (docs/mesh.md)')
    .option(
      '--agent <file>',
      'host the SDK agents this ES module exports (repeatable; see docs/sdk.md)',
      (file: string, files: string[]) => [...files, file],
      [] as string[],
    )
    .option('--drain-ms <ms>', 'at shutdown, how long to let in-flight jobs finish (default 10000)')
    .option('--log-level <level>', `the log's level: ${LOG_LEVELS.join(', ')} (default info)`)
    .option(
      '--log-format <format>',
      "the log's format: json or pretty (default pretty on a terminal, else json)",
    )
    .option('-v, --verbose', 'the same as --log-level debug')
    .action(async (opts: StartOptions) => {
      const shutdown = shutdownOnSignals();
      try {
        await runStart(io, opts, shutdown.requested, { stdoutIsTTY: process.stdout.isTTY });
      } finally {
        shutdown.dispose();
      }
    });
}
