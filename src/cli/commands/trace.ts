/**
 * `plexus trace TRACE_ID [--data DIR] [--json] [--width N] [--no-color]` (seed 002 §12.1):
 * offline, reads a node's event log and draws the spans of one trace as a waterfall — each
 * job a span (submitted → started → ended), nested under the job that called it. TRACE_ID is
 * the 32-hex trace id or a whole `traceparent`. An unknown trace exits 1.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { PlexusError } from '../../core/errors.js';
import type { Event } from '../../core/records/event.js';
import { DEFAULT_DATA_DIR } from '../../node/node-init.js';
import { parseTraceparent } from '../../wire/index.js';
import { readTraceEvents } from '../../store/trace-events.js';
import type { CliIo } from '../io.js';
import { buildTrace } from '../../observability/trace-spans.js';
import { renderWaterfall, shouldColor } from '../trace-view.js';

/** The most jobs one trace may have before `plexus trace` refuses to draw it. */
export const MAX_TRACE_JOBS = 10_000;

/**
 * The 32-hex trace id of a trace id, the same id in ESRP's UUID form (an ESRP answer's
 * `context.trace_id`), or a traceparent. @throws PlexusError `INVALID_PARAMS`.
 */
export function traceIdArgument(text: string): string {
  const value = text.trim().toLowerCase();
  if (/^(?!0{32}$)[0-9a-f]{32}$/.test(value)) return value;
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(value)) {
    const hex = value.replace(/-/g, '');
    if (!/^0{32}$/.test(hex)) return hex;
  }
  const parts = parseTraceparent(value);
  if (parts !== undefined) return parts.traceId;
  throw new PlexusError(
    'INVALID_PARAMS',
    `TRACE_ID must be a 32-hex trace id or a traceparent (00-<trace id>-<span id>-<flags>) (or the trace id in UUID form), got ${JSON.stringify(text.slice(0, 80))}`,
  );
}

interface TraceOptions {
  readonly data: string;
  readonly json: boolean;
  readonly width?: string;
  readonly color: boolean;
  readonly tenant?: string;
}

/** Adds `trace` to the program. */
export function registerTrace(program: Command, io: CliIo): void {
  program
    .command('trace')
    .description("draw one trace's spans from a node's event log as a waterfall (offline)")
    .argument('<trace-id>', 'the 32-hex trace id, or a traceparent')
    .option('--data <dir>', "the node's data directory", DEFAULT_DATA_DIR)
    .option('--json', 'print the spans as JSON', false)
    .option('--width <columns>', 'the width to draw to (default: the terminal width, else 100)')
    .option('--no-color', 'never colour the output (NO_COLOR also turns colour off)')
    .option('--tenant <id>', "only that tenant's jobs and events (what the tenant itself may see)")
    .action(async (id: string, opts: TraceOptions) => {
      const traceId = traceIdArgument(id);
      const dataDir = resolve(io.cwd, opts.data);
      const { withDataDirLog } = await import('../../node/data-dir-replay.js');
      const view = await withDataDirLog(dataDir, async (log) => {
        const { jobEvents, otherEvents } = await readTraceEvents(log, traceId, { maxJobs: MAX_TRACE_JOBS });
        const mine = (e: Event): boolean => opts.tenant === undefined || e.tenant === opts.tenant;
        return buildTrace(traceId, jobEvents.filter(mine), otherEvents.filter(mine));
      });
      if (view === undefined) {
        throw new PlexusError('NOT_FOUND', `no job in the event log of ${dataDir} carries trace ${traceId}`);
      }
      if (opts.json) {
        io.stdout(`${JSON.stringify(view)}\n`);
        return;
      }
      const width =
        opts.width === undefined ? (process.stdout.isTTY ? process.stdout.columns : 100) : Number(opts.width);
      if (!Number.isSafeInteger(width) || width < 1) {
        throw new PlexusError(
          'INVALID_PARAMS',
          `--width must be a whole number of columns, got ${JSON.stringify(opts.width)}`,
        );
      }
      io.stdout(
        renderWaterfall(view, { width, color: shouldColor(process.stdout, process.env, opts.color) }),
      );
    });
}
