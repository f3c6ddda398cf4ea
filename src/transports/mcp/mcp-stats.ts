/**
 * The MCP tool-call aggregates of `GET /v1/stats/mcp` (issue 13 item 7, seed 004 Req 13.5;
 * docs/decisions/mcp.md MCP-16): calls, errors and mean duration in total and per tool, per
 * tenant, folded from the `mcp.invocation` records of the event log. Nothing is kept that
 * the log does not hold: a read first folds the records appended since the last one (in
 * pages), so the figures are the log's, survive a restart, and include every call whose
 * record was committed before the read.
 */
import type { EventLog } from '../../store/index.js';
import { MCP_INVOCATION_EVENT, invocationRecordOf } from './invocation-record.js';

/** Calls, errors and mean duration of a set of calls. */
export interface CallFigures {
  readonly calls: number;
  readonly errors: number;
  /** Mean wall time, ms (0 when there are no calls). */
  readonly meanDurationMs: number;
}

/** The body of `GET /v1/stats/mcp`: the caller's tenant's figures. */
export interface McpStatsView extends CallFigures {
  /** Per tool name, in name order. */
  readonly byTool: Readonly<Record<string, CallFigures>>;
}

interface Tally {
  calls: number;
  errors: number;
  durationMs: number;
}

/** Most tools tallied per tenant; further tools count under {@link OTHER_TOOLS}. */
export const MAX_TOOLS_PER_TENANT = 10_000;
/** The `byTool` key of calls beyond {@link MAX_TOOLS_PER_TENANT} distinct tools. */
export const OTHER_TOOLS = '(other)';

const PAGE = 1000;

function figures(t: Tally): CallFigures {
  return { calls: t.calls, errors: t.errors, meanDurationMs: t.calls === 0 ? 0 : t.durationMs / t.calls };
}

class TenantTally {
  readonly total: Tally = { calls: 0, errors: 0, durationMs: 0 };
  readonly byTool = new Map<string, Tally>();

  add(tool: string, failed: boolean, durationMs: number): void {
    const key = this.byTool.has(tool) || this.byTool.size < MAX_TOOLS_PER_TENANT ? tool : OTHER_TOOLS;
    let t = this.byTool.get(key);
    if (t === undefined) this.byTool.set(key, (t = { calls: 0, errors: 0, durationMs: 0 }));
    for (const tally of [this.total, t]) {
      tally.calls++;
      if (failed) tally.errors++;
      tally.durationMs += durationMs;
    }
  }
}

/** The aggregates of one node's MCP tool calls. */
export class McpStats {
  readonly #tenants = new Map<string, TenantTally>();
  #afterSeq = 0;
  #folding: Promise<void> = Promise.resolve();

  constructor(private readonly log: EventLog) {}

  /** The figures of `tenant` (`undefined` = calls made without a tenant), as of now. */
  async view(tenant: string | undefined, signal?: AbortSignal): Promise<McpStatsView> {
    const fold = this.#folding.then(() => this.#fold(signal));
    this.#folding = fold.catch(() => undefined);
    await fold;
    const tally = this.#tenants.get(tenant ?? '') ?? new TenantTally();
    const names = [...tally.byTool.keys()].sort();
    return {
      ...figures(tally.total),
      byTool: Object.fromEntries(names.map((name) => [name, figures(tally.byTool.get(name) as Tally)])),
    };
  }

  async #fold(signal: AbortSignal | undefined): Promise<void> {
    for (;;) {
      const events = await this.log.read({
        type: MCP_INVOCATION_EVENT,
        afterSeq: this.#afterSeq,
        limit: PAGE,
        ...(signal === undefined ? {} : { signal }),
      });
      for (const event of events) {
        this.#afterSeq = event.seq;
        let record;
        try {
          record = invocationRecordOf(event.data);
        } catch {
          continue; // a malformed record (not written by this face) counts for nothing
        }
        const key = event.tenant ?? '';
        let tally = this.#tenants.get(key);
        if (tally === undefined) this.#tenants.set(key, (tally = new TenantTally()));
        tally.add(record.tool, record.outcome !== 'success', record.durationMs);
      }
      if (events.length < PAGE) return;
    }
  }
}
