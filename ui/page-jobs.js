// Jobs, live: the caller's jobs newest first, filtered by state and verb, loaded page by page
// as the list is scrolled and drawn virtually (only the rows in view exist in the DOM, so
// 10,000 jobs stay fast); jobs created or changed while the page is open arrive over the
// node's job feed (SSE) and are merged in by id.
import { aborted, getJson, readSse } from './api.js';
import { clock, fill, h, heading, ms } from './dom.js';

/** The height of one row, px (app.css .jobs .row). */
const ROW = 36;
/** Rows drawn beyond the viewport on each side. */
const OVERSCAN = 10;
/** Jobs per page fetched. */
const PAGE = 200;
const STATES = ['queued', 'started', 'succeeded', 'failed', 'cancelled'];

function matches(row, filters) {
  if (filters.state && row.state !== filters.state) return false;
  if (filters.verb) {
    if (filters.verb.endsWith('.*')) return row.verb.startsWith(filters.verb.slice(0, -1));
    return row.verb === filters.verb;
  }
  return true;
}

function rowNode(row, index) {
  const node = h(
    'a',
    {
      class: `row state-${row.state}`,
      role: 'row',
      href: `#/jobs/${encodeURIComponent(row.id)}`,
      'aria-rowindex': String(index + 2),
    },
    h('span', { role: 'cell', class: 'c-state' }, h('span', { class: `badge ${row.state}` }, row.state)),
    h('span', { role: 'cell', class: 'c-verb' }, row.verb),
    h('span', { role: 'cell', class: 'c-tenant' }, row.tenant ?? '—'),
    h('span', { role: 'cell', class: 'c-created' }, clock(row.created)),
    h('span', { role: 'cell', class: 'c-duration' }, row.finished ? ms(row.duration_ms) : 'running'),
    h('span', { role: 'cell', class: 'c-id' }, row.id),
  );
  node.style.top = `${index * ROW}px`; // CSSOM: allowed by the page's CSP, unlike a style attribute
  return node;
}

export async function render(main, _params, signal) {
  const query = new URLSearchParams(location.hash.split('?')[1] ?? '');
  const filters = { state: query.get('state') ?? '', verb: query.get('verb') ?? '' };
  let rows = [];
  const byId = new Map();
  let cursor = null;
  let exhausted = false;
  let loading = false;
  let scheduled = false;

  const stateSelect = h(
    'select',
    { id: 'job-state', name: 'state' },
    h('option', { value: '' }, 'any state'),
    STATES.map((s) => h('option', { value: s, selected: s === filters.state }, s)),
  );
  const verbInput = h('input', {
    id: 'job-verb',
    name: 'verb',
    placeholder: 'math.evaluate or math.*',
    value: filters.verb,
  });
  const form = h(
    'form',
    {
      class: 'toolbar',
      'aria-label': 'Job filters',
      onsubmit: (event) => {
        event.preventDefault();
        const q = new URLSearchParams();
        if (stateSelect.value) q.set('state', stateSelect.value);
        if (verbInput.value.trim()) q.set('verb', verbInput.value.trim());
        location.hash = `#/jobs${q.size > 0 ? `?${q}` : ''}`;
      },
    },
    h('label', { for: 'job-state' }, 'State'),
    stateSelect,
    h('label', { for: 'job-verb' }, 'Verb'),
    verbInput,
    h('button', { type: 'submit' }, 'Apply filters'),
  );
  const summary = h('p', { class: 'muted', id: 'jobs-summary', 'aria-live': 'polite' });
  const live = h('span', { class: 'live', id: 'jobs-live' }, 'connecting…');
  const spacer = h('div', { class: 'spacer' });
  const viewport = h('div', { class: 'viewport', tabindex: '0', 'aria-label': 'Jobs, newest first' }, spacer);
  const table = h(
    'div',
    { class: 'jobs', role: 'table', 'aria-label': 'Jobs', 'aria-describedby': 'jobs-summary' },
    h(
      'div',
      { class: 'row head', role: 'row', 'aria-rowindex': '1' },
      ['State', 'Verb', 'Tenant', 'Created', 'Duration', 'Job id'].map((t) =>
        h('span', { role: 'columnheader' }, t),
      ),
    ),
    viewport,
  );
  fill(main, heading('Jobs'), form, h('p', {}, live, ' ', summary), table);

  function schedule() {
    if (scheduled || signal.aborted) return;
    scheduled = true;
    requestAnimationFrame(() => {
      scheduled = false;
      draw();
    });
  }

  function draw() {
    table.setAttribute('aria-rowcount', String(rows.length + 1));
    spacer.style.height = `${rows.length * ROW}px`;
    const first = Math.max(0, Math.floor(viewport.scrollTop / ROW) - OVERSCAN);
    const last = Math.min(
      rows.length,
      Math.ceil((viewport.scrollTop + viewport.clientHeight) / ROW) + OVERSCAN,
    );
    const nodes = [];
    for (let i = first; i < last; i++) nodes.push(rowNode(rows[i], i));
    const focused = document.activeElement?.closest?.('.viewport .row')?.getAttribute('href');
    fill(viewport, spacer, nodes);
    if (focused) viewport.querySelector(`a[href="${CSS.escape(focused)}"]`)?.focus({ preventScroll: true });
    fill(
      summary,
      `${rows.length} job${rows.length === 1 ? '' : 's'} loaded${exhausted ? '' : ' — scroll for more'}`,
    );
    if (!exhausted && !loading && last >= rows.length - OVERSCAN) void more();
  }

  async function more() {
    if (loading || exhausted || signal.aborted) return;
    loading = true;
    try {
      const q = new URLSearchParams({ limit: String(PAGE) });
      if (filters.state) q.set('state', filters.state);
      if (filters.verb) q.set('verb', filters.verb);
      if (cursor) q.set('cursor', cursor);
      const page = await getJson(`/ui/api/jobs?${q}`, signal);
      for (const row of page.jobs) {
        if (byId.has(row.id)) continue;
        byId.set(row.id, row);
        rows.push(row);
      }
      cursor = page.next_cursor;
      exhausted = cursor === null;
    } finally {
      loading = false;
    }
    schedule();
  }

  function merge(row) {
    if (byId.has(row.id)) {
      const index = rows.findIndex((r) => r.id === row.id);
      byId.set(row.id, row);
      if (index >= 0) rows[index] = row;
    } else if (matches(row, filters)) {
      byId.set(row.id, row);
      rows.unshift(row);
      if (viewport.scrollTop > 0) viewport.scrollTop += ROW; // keep the rows in view still
    }
    schedule();
  }

  async function follow() {
    let lastId;
    for (let attempt = 0; !signal.aborted; attempt++) {
      try {
        const opened = () => {
          fill(live, '● live');
          live.classList.add('on');
        };
        const onEvent = ({ id, data }) => {
          lastId = id;
          attempt = 0;
          merge(data);
        };
        await readSse('/ui/api/jobs/events', onEvent, signal, lastId, opened);
      } catch (error) {
        if (aborted(error) || signal.aborted) return;
      }
      live.classList.remove('on');
      fill(live, 'reconnecting…');
      await new Promise((done) => setTimeout(done, Math.min(30_000, 1000 * 2 ** Math.min(attempt, 5))));
    }
  }

  viewport.addEventListener('scroll', schedule, { passive: true });
  window.addEventListener('resize', schedule, { signal });
  void follow();
  await more();
}
