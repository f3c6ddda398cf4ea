// The dashboard's shell: hash routing (#/agents, #/jobs, #/jobs/<id>, #/run/<verb>, #/mesh,
// #/metrics), the token prompt, and focus moved to each page's heading for keyboard and
// screen-reader users. Each page is a module exporting render(main, params, signal); the
// signal aborts its streams and timers when the page is left.
import { onUnauthorized, setToken, token } from './api.js';
import { fill, h } from './dom.js';
import * as agents from './page-agents.js';
import * as jobs from './page-jobs.js';
import * as job from './page-job.js';
import * as run from './page-run.js';
import * as mesh from './page-mesh.js';
import * as metrics from './page-metrics.js';

const ROUTES = [
  { page: 'agents', pattern: /^\/agents$/, module: agents },
  { page: 'jobs', pattern: /^\/jobs$/, module: jobs },
  { page: 'jobs', pattern: /^\/jobs\/([^/]+)$/, module: job },
  { page: 'run', pattern: /^\/run(?:\/([^/]+))?$/, module: run },
  { page: 'mesh', pattern: /^\/mesh$/, module: mesh },
  { page: 'metrics', pattern: /^\/metrics$/, module: metrics },
];

let current;

function route() {
  const path = (location.hash.replace(/^#/, '') || '/agents').split('?')[0];
  for (const r of ROUTES) {
    const m = r.pattern.exec(path);
    if (m)
      return { ...r, params: m.slice(1).map((p) => (p === undefined ? undefined : decodeURIComponent(p))) };
  }
  return undefined;
}

async function show() {
  current?.abort();
  const controller = new AbortController();
  current = controller;
  const main = document.getElementById('main');
  const found = route();
  for (const link of document.querySelectorAll('nav a')) {
    if (link.dataset.page === found?.page) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  if (found === undefined) {
    fill(
      main,
      h('h1', { tabindex: '-1', id: 'page-title' }, 'Not found'),
      h('p', {}, h('a', { href: '#/agents' }, 'Go to the agents')),
    );
    focusTitle();
    return;
  }
  fill(main, h('p', {}, 'Loading…'));
  try {
    await found.module.render(main, found.params, controller.signal);
  } catch (error) {
    if (error?.name === 'AbortError' || controller.signal.aborted) return;
    fill(
      main,
      h('h1', { tabindex: '-1', id: 'page-title' }, 'This page could not be loaded'),
      h('p', { role: 'alert' }, String(error?.message ?? error)),
    );
  }
  if (!controller.signal.aborted) focusTitle();
}

function focusTitle() {
  const title = document.getElementById('page-title');
  if (title && document.activeElement?.closest?.('main') === null) title.focus({ preventScroll: true });
}

/** The token form, shown when the node answers 401. */
function askToken() {
  if (document.getElementById('token-form')) return;
  const input = h('input', {
    id: 'token-input',
    type: 'password',
    autocomplete: 'off',
    required: true,
    value: token(),
  });
  const form = h(
    'form',
    {
      id: 'token-form',
      class: 'token',
      'aria-labelledby': 'token-title',
      onsubmit: (event) => {
        event.preventDefault();
        setToken(input.value.trim());
        form.remove();
        void show();
      },
    },
    h('h2', { id: 'token-title' }, 'This node asks for a credential'),
    h(
      'p',
      {},
      'Paste an API key or token. It is kept in this browser tab only (sessionStorage) and sent as a bearer header.',
    ),
    h('label', { for: 'token-input' }, 'Access token'),
    input,
    h('button', { type: 'submit' }, 'Use this token'),
  );
  document.querySelector('header').after(form);
  input.focus();
}

onUnauthorized(askToken);
window.addEventListener('hashchange', () => void show());
void show();
