// One job: its facts, input and outputs, its error with the recovery hints, its events in log
// order and the waterfall of the trace it belongs to; a job still running is followed live over
// its SSE stream.
import { aborted, ApiError, esrpOutputs, getJson, readSse, token } from './api.js';
import { clock, fill, h, jsonBlock, ms, problem, svg } from './dom.js';

const TERMINAL = new Set(['succeeded', 'failed', 'cancelled']);

/** The error of an ESRP answer with its recovery hints (seed 002 §8.2), as a definition list. */
export function errorBlock(error) {
  if (!error) return null;
  const d = error.details ?? {};
  const facts = [
    ['Code', `${error.code}${d.plexus_code ? ` (${d.plexus_code})` : ''}`],
    ['Message', error.message],
    ['Category', d.category],
    [
      'Retryable',
      error.retryable === undefined
        ? undefined
        : error.retryable
          ? `yes${error.retry_after_ms ? `, after ${ms(error.retry_after_ms)}` : ''}`
          : 'no',
    ],
    ['Fallback verb', d.fallback_verb],
    ['Field', d.pointer],
  ].filter(([, v]) => v !== undefined && v !== null && v !== '');
  return h(
    'section',
    { class: 'problem', role: 'alert', 'aria-labelledby': 'error-title' },
    h('h2', { id: 'error-title' }, 'Error'),
    h(
      'dl',
      { class: 'facts' },
      facts.map(([k, v]) => [h('dt', {}, k), h('dd', {}, String(v))]),
    ),
    d.suggested_action
      ? h(
          'p',
          { class: 'hint', 'data-testid': 'recovery-hint' },
          h('strong', {}, 'What to do: '),
          d.suggested_action,
        )
      : null,
  );
}

function outputsBlock(outputs) {
  const list = esrpOutputs(outputs);
  if (list.length === 0) return null;
  return h(
    'section',
    { 'aria-labelledby': 'outputs-title' },
    h('h2', { id: 'outputs-title' }, 'Output'),
    list.map((o) => jsonBlock(o.value, `Output ${o.name}`)),
  );
}

const SPAN_STATUS = {
  ok: 'succeeded',
  failed: 'failed',
  cancelled: 'cancelled',
  rejected: 'failed',
  running: 'started',
  queued: 'queued',
};

/**
 * The trace's spans (one per job, nested by caller) as a waterfall: each row names the verb,
 * its agents and status in text, and draws its span as a bar on the trace's time axis (SVG
 * geometry, so the strict CSP needs no inline style). The current job is marked, the others link.
 */
export function traceBlock(trace, currentId) {
  if (!trace || trace.spans.length === 0) return null;
  const total = Math.max(trace.durationMs, 1);
  const x = (offset) => Math.min(1000, Math.max(0, (offset / total) * 1000));
  return h(
    'section',
    { 'aria-labelledby': 'trace-title' },
    h(
      'h2',
      { id: 'trace-title' },
      `Trace (${trace.spans.length} ${trace.spans.length === 1 ? 'span' : 'spans'})`,
    ),
    h(
      'p',
      { class: 'live' },
      h('code', {}, trace.traceId),
      ` · ${ms(trace.durationMs)} in all · the whole trace: plexus trace ${trace.traceId}`,
    ),
    h(
      'ol',
      { class: 'waterfall', 'data-testid': 'trace-waterfall' },
      trace.spans.map((span) => {
        const current = span.jobId === currentId;
        const status = SPAN_STATUS[span.status] ?? 'queued';
        const label = current
          ? h('strong', { 'aria-current': 'true' }, span.verb)
          : h('a', { href: `#/jobs/${encodeURIComponent(span.jobId)}` }, span.verb);
        return h(
          'li',
          { class: `depth-${Math.min(span.depth, 8)}${current ? ' current' : ''}`, 'data-job': span.jobId },
          h(
            'span',
            { class: 'span-label' },
            label,
            ' ',
            h('span', { class: `badge ${status}` }, span.status),
            span.agents.length > 0 ? h('span', { class: 'live' }, ` on ${span.agents.join(', ')}`) : null,
            span.error ? h('span', { class: 'live' }, ` ${span.error.code}`) : null,
          ),
          svg(
            'svg',
            {
              class: 'span-track',
              viewBox: '0 0 1000 10',
              preserveAspectRatio: 'none',
              'aria-hidden': 'true',
            },
            svg('rect', {
              class: `span-bar ${status}`,
              x: x(span.offsetMs),
              y: 1,
              height: 8,
              width: Math.max(2, x(span.offsetMs + span.durationMs) - x(span.offsetMs)),
            }),
          ),
          h('span', { class: 'span-time' }, `+${ms(span.offsetMs)} · ${ms(span.durationMs)}`),
        );
      }),
    ),
  );
}

function eventsBlock(events) {
  return h(
    'section',
    { 'aria-labelledby': 'events-title' },
    h('h2', { id: 'events-title' }, `Events (${events.length})`),
    h(
      'ol',
      { class: 'events' },
      events.map((e) =>
        h(
          'li',
          {},
          h('span', { class: 'seq' }, `#${e.seq}`),
          ' ',
          h('strong', {}, e.name),
          ' ',
          h('time', { datetime: e.time }, clock(e.time)),
          h('details', {}, h('summary', {}, 'Data'), jsonBlock(e.data, `Data of event ${e.seq}`)),
        ),
      ),
    ),
  );
}

export async function render(main, [id], signal) {
  let detail;
  let trace = null;
  const readTrace = async () => {
    // the waterfall is an extra: a job page still shows when its trace cannot be read
    const answer = await getJson(`/ui/api/jobs/${encodeURIComponent(id)}/trace`, signal).catch(() => null);
    trace = answer?.trace ?? null;
  };
  try {
    [detail] = await Promise.all([getJson(`/ui/api/jobs/${encodeURIComponent(id)}`, signal), readTrace()]);
  } catch (error) {
    if (error instanceof ApiError) {
      fill(
        main,
        h('h1', { tabindex: '-1', id: 'page-title' }, 'Job'),
        problem(error),
        h('p', {}, h('a', { href: '#/jobs' }, 'Back to the jobs')),
      );
      return;
    }
    throw error;
  }
  const draw = () => {
    const { job, esrp, input, events } = detail;
    const cancel = TERMINAL.has(job.state)
      ? null
      : h('button', { type: 'button', onclick: () => void cancelJob(job.id) }, 'Cancel this job');
    const focusedTitle = document.activeElement?.id === 'page-title';
    fill(
      main,
      h('p', {}, h('a', { href: '#/jobs' }, '← All jobs')),
      h('h1', { tabindex: '-1', id: 'page-title' }, 'Job ', h('code', {}, job.id)),
      h(
        'dl',
        { class: 'facts' },
        [
          ['State', h('span', { class: `badge ${job.state}`, 'data-testid': 'job-state' }, job.state)],
          ['Verb', h('a', { href: `#/run/${encodeURIComponent(job.verb)}` }, job.verb)],
          ['Tenant', job.tenant ?? '—'],
          ['Created', clock(job.created)],
          ['Started', clock(job.started)],
          ['Finished', clock(job.finished)],
          ['Duration', job.finished ? ms(job.duration_ms) : 'running'],
          ['Attempts', String(job.attempts)],
        ].map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]),
      ),
      cancel,
      errorBlock(esrp.error),
      traceBlock(trace, job.id),
      h(
        'section',
        { 'aria-labelledby': 'input-title' },
        h('h2', { id: 'input-title' }, 'Input'),
        jsonBlock(input, 'Input'),
      ),
      outputsBlock(esrp.outputs),
      eventsBlock(events),
    );
    if (focusedTitle) document.getElementById('page-title')?.focus({ preventScroll: true });
  };
  const refresh = async () => {
    [detail] = await Promise.all([getJson(`/ui/api/jobs/${encodeURIComponent(id)}`, signal), readTrace()]);
    draw();
  };
  async function cancelJob(jobId) {
    try {
      const response = await fetch(`/v1/jobs/${encodeURIComponent(jobId)}`, {
        method: 'DELETE',
        headers: token() ? { authorization: `Bearer ${token()}` } : {},
        signal,
      });
      await response.text();
      await refresh();
    } catch (error) {
      if (!aborted(error)) main.prepend(problem(error));
    }
  }
  draw();
  if (!TERMINAL.has(detail.job.state)) {
    const last = detail.events.at(-1)?.seq;
    void readSse(
      `/v1/jobs/${encodeURIComponent(id)}/events`,
      () => void refresh().catch(() => undefined),
      signal,
      last,
    ).catch((error) => {
      if (!aborted(error)) main.prepend(problem(error));
    });
  }
}
