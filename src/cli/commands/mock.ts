/**
 * `plexus mock [--manifest FILE] [--port 3100] [--verbose]` (seed 002 §12.1): serves every era
 * of a verb manifest from a real Plexus node whose agents answer with generated values that
 * match each era's output schema — the same input always gives the same output. Every face of a
 * node works: ESRP (`POST /v1/execute`, `/v1/jobs` + SSE), JSON-RPC over WebSocket (`/rpc`),
 * Emergence and discovery (`GET /agents`).
 *
 * The node listens on 127.0.0.1 only, in dev mode (no credentials), keeps its event log in
 * memory and its key in a temporary directory removed at exit. The first line printed is
 * `plexus mock of <file> listening on <url>`; with `--port 0` it names the port actually bound.
 * SIGTERM or SIGINT stops it (exit 0).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { PlexusError } from '../../core/errors.js';
import type { EraStatus } from '../../core/records/verb-spec.js';
import { schemaValidator } from '../../core/schema-validator.js';
import { mockAgents, mockExampleInput, type MockVerb } from '../../node/mock/index.js';
import { eraStatusAt } from '../../runtime/index.js';
import { countProblems, formatManifestProblem } from '../../wire/agentese/manifest/index.js';
import { cliLogger } from '../cli-logger.js';
import type { CliIo } from '../io.js';
import type { CommandOutcome } from '../main.js';
import { shutdownOnSignals } from '../signals.js';
import { findManifest, readManifest } from './lint.js';

/** The flags of `plexus mock`. */
export interface MockOptions {
  readonly manifest?: string;
  readonly port?: string;
  readonly verbose?: boolean;
}

/** The port `plexus mock` listens on by default: a node's (D15), so `plexus call` finds it. */
export const DEFAULT_MOCK_PORT = 3100;
/** How long the mock lets in-flight calls finish at shutdown, ms. */
export const MOCK_DRAIN_MS = 2_000;
/** The longest example input shown in the `try` line, characters. */
const EXAMPLE_LIMIT = 160;

function portOf(value: string | undefined): number {
  if (value === undefined) return DEFAULT_MOCK_PORT;
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65_535) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `--port must be a whole number from 0 to 65535, got ${JSON.stringify(value)}`,
    );
  }
  return Number(value);
}

/** The status of an era today, as the mock's listing notes it. */
function statusNotes(status: EraStatus): string[] {
  if (status === 'stable') return [];
  return [status === 'sunset' ? 'sunset: refused with its migration pointer' : status];
}

function verbLine(v: MockVerb): string {
  const notes = [
    v.category,
    ...statusNotes(eraStatusAt(v.spec, Date.now())),
    ...(v.preferred ? [] : [`only as ${v.verb}`]),
  ];
  return `    ${v.verb.padEnd(32)} agent ${v.agent.padEnd(12)} ${notes.join(', ')}`;
}

/**
 * Starts the mock node, prints where it listens and what it serves, waits for `shutdown`,
 * then stops it. Returns the exit code: 1 when the manifest has errors (they are printed).
 *
 * @throws PlexusError for a bad flag, an unreadable manifest, an output schema the generator
 *   cannot satisfy, or a port that cannot be bound.
 */
export async function runMock(io: CliIo, opts: MockOptions, shutdown: Promise<string>): Promise<number> {
  const port = portOf(opts.port);
  const file = await findManifest(io, opts.manifest);
  const load = await readManifest(io, file);
  const { errors } = countProblems(load.problems);
  if (errors > 0) {
    for (const p of load.problems) io.stderr(`${formatManifestProblem(p)}\n`);
    io.stderr(`${file}: ${errors} error${errors === 1 ? '' : 's'}; nothing to mock\n`);
    return 1;
  }
  const validator = schemaValidator();
  const mock = mockAgents(load.manifest, { validator });
  const dataDir = await mkdtemp(join(tmpdir(), 'plexus-mock-'));
  const { createNode } = await import('../../node/index.js'); // loaded only to serve
  const node = createNode({
    dataDir,
    store: 'memory',
    host: '127.0.0.1',
    port,
    dev: true,
    primitives: false,
    agents: mock.agents,
    drainMs: MOCK_DRAIN_MS,
    logger: cliLogger(io, opts.verbose === true),
  });
  try {
    await node.start();
    const say = (text = ''): void => {
      io.stdout(`${text}\n`);
    };
    const ws = node.url.replace(/^http/, 'ws');
    say(`plexus mock of ${file} listening on ${node.url}`);
    say(`  faces   ESRP POST ${node.url}/v1/execute and /v1/jobs · Emergence POST ${node.url}/emergence`);
    say(`          discovery GET ${node.url}/agents · WebSocket JSON-RPC ${ws}/rpc`);
    say(
      `  verbs (${mock.verbs.length} eras, outputs generated from each output schema; same input, same output):`,
    );
    for (const v of mock.verbs) say(verbLine(v));
    const examples = mock.verbs
      .filter((v) => v.preferred)
      .map((v) => ({ v, text: JSON.stringify(mockExampleInput(v.spec, validator)) }))
      .filter((e) => e.text.length <= EXAMPLE_LIMIT && !e.text.includes("'"));
    const example = examples[0];
    if (example !== undefined) {
      say(`  try     plexus call ${example.v.name} --node ${node.url} --data '${example.text}'`);
    }
    say('press Ctrl-C to stop');
    const signal = await shutdown;
    io.stderr(`plexus: ${signal}: stopping the mock\n`);
  } finally {
    await node.stop({ drainMs: MOCK_DRAIN_MS });
    await rm(dataDir, { recursive: true, force: true });
  }
  io.stderr('plexus: stopped\n');
  return 0;
}

/** Adds `mock` to the program. */
export function registerMock(program: Command, io: CliIo, outcome: CommandOutcome): void {
  program
    .command('mock')
    .description(
      'serve every verb of a manifest with generated, schema-valid outputs (a real node on 127.0.0.1)',
    )
    .option(
      '-m, --manifest <file>',
      'the manifest; default plexus.manifest.yaml or agentese.manifest.yaml here',
    )
    .option('-p, --port <port>', `the port; 0 picks a free one (default ${DEFAULT_MOCK_PORT})`)
    .option('-v, --verbose', 'log node events on stderr')
    .action(async (opts: MockOptions) => {
      const shutdown = shutdownOnSignals();
      try {
        outcome.exitCode = await runMock(io, opts, shutdown.requested);
      } finally {
        shutdown.dispose();
      }
    });
}
