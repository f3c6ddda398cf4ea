// A form from a verb's input schema and its `ui:form` hints (seed 002 §5.1): `fields` orders
// (and picks) the fields, `submit` names the button, `widgets` may ask for a `textarea`,
// `select`, `checkbox` or `json` widget per field. Fields: strings as text inputs (textareas
// for long texts), numbers and integers as number inputs, booleans as checkboxes, enums as
// selects, anything else as JSON. A schema that is not an object with properties is one JSON
// field.
import { h } from './dom.js';

const LONG_TEXT = /^(text|body|content|prompt|message|document)$/i;

function widgetOf(name, schema, hints) {
  const asked = hints.widgets?.[name];
  if (typeof asked === 'string') return asked;
  if (Array.isArray(schema.enum)) return 'select';
  if (schema.type === 'boolean') return 'checkbox';
  if (schema.type === 'integer' || schema.type === 'number') return 'number';
  if (schema.type === 'string') return LONG_TEXT.test(name) ? 'textarea' : 'text';
  return 'json';
}

function field(prefix, name, schema, required, widget) {
  const id = `${prefix}-${name.replace(/[^a-zA-Z0-9_-]/g, '_')}`;
  const described = schema.description ? `${id}-help` : null;
  const common = { id, name, 'aria-describedby': described, required: required && widget !== 'checkbox' };
  let control;
  const initial = schema.default;
  switch (widget) {
    case 'select':
      control = h(
        'select',
        common,
        required ? null : h('option', { value: '' }, '—'),
        (schema.enum ?? []).map((v) =>
          h('option', { value: JSON.stringify(v), selected: v === initial }, String(v)),
        ),
      );
      break;
    case 'checkbox':
      control = h('input', { ...common, type: 'checkbox', checked: initial === true });
      break;
    case 'number':
      control = h('input', {
        ...common,
        type: 'number',
        step: schema.type === 'integer' ? '1' : 'any',
        min: schema.minimum,
        max: schema.maximum,
        value: initial,
      });
      break;
    case 'textarea':
      control = h('textarea', { ...common, rows: '5', maxlength: schema.maxLength }, initial ?? '');
      break;
    case 'json':
      control = h(
        'textarea',
        { ...common, rows: '4', class: 'mono', spellcheck: 'false' },
        initial === undefined ? '' : JSON.stringify(initial, null, 2),
      );
      break;
    default:
      control = h('input', {
        ...common,
        type: 'text',
        maxlength: schema.maxLength,
        value: initial,
        autocomplete: 'off',
        spellcheck: 'false',
      });
  }
  const error = h('p', { class: 'field-error', id: `${id}-error`, 'aria-live': 'polite' });
  const node = h(
    'div',
    { class: `field ${widget}` },
    h(
      'label',
      { for: id },
      schema.title ?? name,
      required ? h('span', { class: 'req', 'aria-hidden': 'true' }, ' *') : null,
      widget === 'json' ? ' (JSON)' : null,
    ),
    control,
    described ? h('p', { class: 'help', id: described }, schema.description) : null,
    error,
  );
  const read = () => {
    error.textContent = '';
    control.removeAttribute('aria-invalid');
    const fail = (message) => {
      error.textContent = message;
      control.setAttribute('aria-invalid', 'true');
      control.setAttribute('aria-errormessage', error.id);
      throw Object.assign(new Error(message), { control });
    };
    if (widget === 'checkbox') return { set: true, value: control.checked };
    const raw = control.value;
    if (raw.trim() === '') {
      if (required) fail(`${name} is required`);
      return { set: false };
    }
    if (widget === 'select') return { set: true, value: JSON.parse(raw) };
    if (widget === 'number') {
      const n = Number(raw);
      if (!Number.isFinite(n) || (schema.type === 'integer' && !Number.isInteger(n)))
        fail(`${name} must be ${schema.type === 'integer' ? 'a whole number' : 'a number'}`);
      return { set: true, value: n };
    }
    if (widget === 'json') {
      try {
        return { set: true, value: JSON.parse(raw) };
      } catch (e) {
        fail(`${name} is not valid JSON: ${e.message}`);
      }
    }
    return { set: true, value: raw };
  };
  return { node, read };
}

/**
 * The fields of `schema` with `hints` (the verb's `ui:form`), ids prefixed `prefix`.
 * read() returns the input, or throws an Error whose `control` is the field to fix.
 */
export function schemaForm(schema, hints = {}, prefix = 'in') {
  const properties = schema?.type === 'object' || schema?.properties ? (schema.properties ?? {}) : undefined;
  if (properties === undefined || Object.keys(properties).length === 0) {
    const whole = field(
      prefix,
      'input',
      { ...schema, title: 'Input' },
      schema?.type === 'object' ? false : true,
      'json',
    );
    return {
      nodes: [whole.node],
      read: () => {
        const v = whole.read();
        return v.set ? v.value : schema?.type === 'object' ? {} : null;
      },
    };
  }
  const required = new Set(schema.required ?? []);
  const hinted = Array.isArray(hints.fields)
    ? hints.fields.filter((f) => typeof f === 'string' && f in properties)
    : [];
  const names =
    hinted.length > 0
      ? [...hinted, ...[...required].filter((r) => !hinted.includes(r))]
      : Object.keys(properties);
  const fields = names.map((name) => ({
    name,
    ...field(
      prefix,
      name,
      properties[name] ?? {},
      required.has(name),
      widgetOf(name, properties[name] ?? {}, hints),
    ),
  }));
  return {
    nodes: fields.map((f) => f.node),
    read: () => {
      const out = {};
      let first;
      for (const f of fields) {
        try {
          const v = f.read();
          if (v.set) out[f.name] = v.value;
        } catch (error) {
          first ??= error;
        }
      }
      if (first) throw first;
      return out;
    },
  };
}
