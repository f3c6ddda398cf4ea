/**
 * `plexus replay [--data DIR] [--verify] [--json]`: offline, re-reads a node's event log,
 * verifies its hash chain, rebuilds every projection (registry, jobs, idempotency keys) from
 * scratch and, with `--verify`, checks each against the stored snapshot and the state a
 * restarted node would resume from. Exit 1 names the first bad event or projection.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { DEFAULT_DATA_DIR } from '../../node/node-init.js';
import type { CliIo } from '../io.js';
import { EXIT_USER_ERROR, type CommandOutcome } from '../main.js';

/** Adds `replay` to the program. */
export function registerReplay(program: Command, io: CliIo, outcome: CommandOutcome): void {
  program
    .command('replay')
    .description('verify the event log hash chain and rebuild every projection from it (offline)')
    .option('--data <dir>', "the node's data directory", DEFAULT_DATA_DIR)
    .option('--verify', 'also compare each projection with its stored snapshot and the resume path', false)
    .option('--json', 'print the report as JSON', false)
    .action(async (opts: { data: string; verify: boolean; json: boolean }) => {
      const dataDir = resolve(io.cwd, opts.data);
      const { replayDataDir } = await import('../../node/data-dir-replay.js');
      const report = await replayDataDir(dataDir, { verify: opts.verify });
      if (opts.json) {
        io.stdout(`${JSON.stringify(report)}\n`);
      } else {
        if (report.chain.ok) {
          io.stdout(`chain ok: ${report.events} events, head seq ${report.chain.head.seq}\n`);
        }
        for (const p of report.projections) {
          const checks = p.checks
            .map(({ against, check }) => `, ${against} ${check.ok ? 'ok' : 'MISMATCH'}`)
            .join('');
          io.stdout(`rebuilt ${p.name}: ${p.entries} entries, sha256 ${p.digest.slice(0, 16)}…${checks}\n`);
        }
        if (report.ok) {
          const checked = report.projections.reduce((n, p) => n + p.checks.length, 0);
          io.stdout(
            `replay ok: ${report.events} events, ${report.projections.length} projections rebuilt${
              opts.verify ? `, ${checked} comparisons passed` : ''
            }\n`,
          );
        }
      }
      if (!report.ok) {
        io.stderr(`plexus: replay failed: ${report.problem ?? 'unknown problem'}\n`);
        outcome.exitCode = EXIT_USER_ERROR;
      }
    });
}
