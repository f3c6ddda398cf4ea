/**
 * The spans of one trace, rebuilt from a node's event log (seed 002 §12.1): what `plexus trace`
 * draws as a text waterfall and the dashboard's job page as bars.
 *
 * A span is a job: it opens at `job.submitted`, starts working at `job.started`, and closes at
 * its final event (`job.completed`, `job.failed`, `job.canceled`, `job.rejected`). Its span id
 * is the parent id of the request's W3C `traceparent` (each SDK call sends a fresh one); its
 * parent is the job its request names as `causationId` (a job id, or that job's request id).
 * Other events carrying the trace (what verbs `emit`) are marks on the span of their job.
 */
import type { JsonValue } from '../core/json.js';
import { isJsonObject } from '../core/json.js';
import type { Event } from '../core/records/event.js';

/** How a span ended (or that it has not). */
export type SpanStatus = 'ok' | 'failed' | 'cancelled' | 'rejected' | 'running' | 'queued';

/** An event emitted inside a span. */
export interface SpanMark {
  readonly type: string;
  /** Ms since the trace started. */
  readonly offsetMs: number;
}

/** One job of the trace. */
export interface TraceSpan {
  readonly jobId: string;
  /** The 16-hex parent id of the request's traceparent. */
  readonly spanId: string | undefined;
  /** The job this one was called from, when it is in the trace. */
  readonly parentJobId: string | undefined;
  readonly verb: string;
  /** The agents that ran it. */
  readonly agents: readonly string[];
  readonly status: SpanStatus;
  /** Error code and message of a failed, cancelled or rejected job. */
  readonly error?: { readonly code: string; readonly message: string };
  /** Nesting depth (0 for a span without a parent in the trace). */
  readonly depth: number;
  /** Ms since the trace started: submitted, started working, ended. */
  readonly offsetMs: number;
  readonly startedMs: number | undefined;
  readonly endedMs: number | undefined;
  /** From submission to the end (or to the trace's last event while unfinished). */
  readonly durationMs: number;
  readonly marks: readonly SpanMark[];
}

/** A whole trace. */
export interface TraceView {
  readonly traceId: string;
  /** When the first span was submitted, RFC 3339. */
  readonly startedAt: string;
  readonly durationMs: number;
  /** Spans in tree order: each parent before its children, siblings by submission. */
  readonly spans: readonly TraceSpan[];
}

interface Draft {
  jobId: string;
  seq: number;
  correlationId: string | undefined;
  causationId: string | undefined;
  spanId: string | undefined;
  verb: string;
  agents: string[];
  status: SpanStatus;
  error: { code: string; message: string } | undefined;
  submitted: number;
  started: number | undefined;
  ended: number | undefined;
  marks: { type: string; at: number }[];
}

const END_STATUS: Readonly<Record<string, SpanStatus>> = {
  'job.completed': 'ok',
  'job.failed': 'failed',
  'job.canceled': 'cancelled',
  'job.rejected': 'rejected',
};

function field(data: JsonValue, key: string): JsonValue | undefined {
  return isJsonObject(data) ? data[key] : undefined;
}

function text(value: JsonValue | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** When an event happened: its data's `at` when it has one, else when the log took it. */
function timeOf(event: Event): number {
  const at = Date.parse(text(field(event.data, 'at')) ?? event.time);
  return Number.isNaN(at) ? Date.parse(event.time) : at;
}

function draftOf(submitted: Event): Draft | undefined {
  const jobId = text(field(submitted.data, 'id'));
  if (jobId === undefined) return undefined;
  const request = field(submitted.data, 'request') ?? null;
  const traceparent = text(field(request, 'traceparent')) ?? submitted.trace;
  return {
    jobId,
    seq: submitted.seq,
    correlationId: text(field(submitted.data, 'correlationId')) ?? text(field(request, 'id')),
    causationId: text(field(request, 'causationId')),
    spanId: traceparent?.split('-')[2],
    verb: text(field(submitted.data, 'verb')) ?? '?',
    agents: [],
    status: 'queued',
    error: undefined,
    submitted: timeOf(submitted),
    started: undefined,
    ended: undefined,
    marks: [],
  };
}

function apply(draft: Draft, event: Event): void {
  if (event.type === 'job.started' || event.type === 'job.retried') {
    draft.started ??= timeOf(event);
    draft.status = 'running';
    const agents = field(event.data, 'agents');
    if (Array.isArray(agents)) draft.agents = agents.filter((a): a is string => typeof a === 'string');
    return;
  }
  const status = END_STATUS[event.type];
  if (status === undefined) return;
  draft.status = status;
  draft.ended = timeOf(event);
  const error = field(event.data, 'error');
  const code = text(field(error ?? null, 'code'));
  if (code !== undefined) draft.error = { code, message: text(field(error ?? null, 'message')) ?? '' };
}

/**
 * Builds the spans of trace `traceId` from the `job.submitted` events carrying it, every job
 * event of those jobs (`causation` = job id), and the other events carrying the trace.
 * Returns `undefined` when no job is in the trace.
 */
export function buildTrace(
  traceId: string,
  jobEvents: readonly Event[],
  otherEvents: readonly Event[] = [],
): TraceView | undefined {
  const drafts = new Map<string, Draft>();
  for (const e of jobEvents) {
    if (e.type !== 'job.submitted') continue;
    const draft = draftOf(e);
    if (draft !== undefined && !drafts.has(draft.jobId)) drafts.set(draft.jobId, draft);
  }
  if (drafts.size === 0) return undefined;
  for (const e of jobEvents) {
    const draft = e.causation === undefined ? undefined : drafts.get(e.causation);
    if (draft !== undefined && e.type !== 'job.submitted') apply(draft, e);
  }
  for (const e of otherEvents) {
    const draft = e.causation === undefined ? undefined : drafts.get(e.causation);
    draft?.marks.push({ type: e.type, at: timeOf(e) });
  }
  const byRequest = new Map(
    [...drafts.values()].flatMap((d) => (d.correlationId === undefined ? [] : [[d.correlationId, d]])),
  );
  const parentOf = (d: Draft): Draft | undefined => {
    if (d.causationId === undefined) return undefined;
    const parent = drafts.get(d.causationId) ?? byRequest.get(d.causationId);
    return parent === d ? undefined : parent;
  };
  const all = [...drafts.values()];
  const start = Math.min(...all.map((d) => d.submitted));
  const end = Math.max(
    ...all.flatMap((d) => [
      d.submitted,
      d.started ?? d.submitted,
      d.ended ?? d.submitted,
      ...d.marks.map((m) => m.at),
    ]),
  );
  const order = (a: Draft, b: Draft): number => a.submitted - b.submitted || a.seq - b.seq;
  const children = new Map<Draft | undefined, Draft[]>();
  for (const d of all) {
    // a parent chain that loops back is cut: such a span is shown as a root
    let p = parentOf(d);
    const seen = new Set([d]);
    while (p !== undefined && !seen.has(p)) {
      seen.add(p);
      p = parentOf(p);
    }
    const parent = p === undefined ? parentOf(d) : undefined;
    children.set(parent, [...(children.get(parent) ?? []), d]);
  }
  const spans: TraceSpan[] = [];
  const visit = (d: Draft, depth: number): void => {
    const parent = depth === 0 ? undefined : parentOf(d);
    spans.push({
      jobId: d.jobId,
      spanId: d.spanId,
      parentJobId: parent?.jobId,
      verb: d.verb,
      agents: d.agents,
      status: d.status,
      ...(d.error === undefined ? {} : { error: d.error }),
      depth,
      offsetMs: d.submitted - start,
      startedMs: d.started === undefined ? undefined : d.started - start,
      endedMs: d.ended === undefined ? undefined : d.ended - start,
      durationMs: (d.ended ?? end) - d.submitted,
      marks: d.marks.map((m) => ({ type: m.type, offsetMs: m.at - start })),
    });
    for (const child of (children.get(d) ?? []).sort(order)) visit(child, depth + 1);
  };
  for (const root of (children.get(undefined) ?? []).sort(order)) visit(root, 0);
  return { traceId, startedAt: new Date(start).toISOString(), durationMs: end - start, spans };
}
