// Building DOM nodes without innerHTML: every text from the node is set as text, never parsed.

/**
 * An element: h('a', {href: '#/x', class: 'link'}, 'text', child…). Attributes whose value is
 * null, undefined or false are left out; `on<event>` attributes add listeners.
 */
export function h(tag, attributes = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (name === 'class') el.className = value;
    else if (name === 'text') el.textContent = String(value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces the children of `el`. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** SVG elements. */
export function svg(tag, attributes = {}, ...children) {
  const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== null && value !== undefined) el.setAttribute(name, String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child !== null && child !== undefined)
      el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** JSON, indented, in a <pre>. */
export function jsonBlock(value, label) {
  return h('pre', { class: 'json', tabindex: '0', 'aria-label': label }, JSON.stringify(value, null, 2));
}

/** A duration in ms, short. */
export function ms(value) {
  if (value === null || value === undefined) return '—';
  return value < 1000 ? `${value} ms` : `${(value / 1000).toFixed(value < 10_000 ? 2 : 1)} s`;
}

/** A time of day from an RFC 3339 string. */
export function clock(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleTimeString();
}

/** A page heading that takes focus after navigation. */
export function heading(text) {
  return h('h1', { tabindex: '-1', id: 'page-title' }, text);
}

/** A message box for an error, with the error's recovery hint when it has one. */
export function problem(error) {
  const body = error?.body ?? {};
  const e = body.error ?? {};
  const hint = e.details?.suggested_action;
  return h(
    'div',
    { class: 'problem', role: 'alert' },
    h('strong', {}, e.code ?? `HTTP ${error?.status ?? ''}`.trim() ?? 'Error'),
    ': ',
    e.message ?? error?.message ?? String(error),
    hint ? h('p', { class: 'hint' }, 'What to do: ', hint) : null,
  );
}
