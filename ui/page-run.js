// Run a verb: a form made from the verb's input schema and its `ui:form` hints; submitting runs
// the verb as an async ESRP job (POST /v1/jobs) and follows the job's events live — progress
// as a bar and, for verbs with a `ui:stream` projection (or any job that reports progress),
// each event as it comes — until the result or the error with its recovery hint.
import { aborted, esrpOutputs, esrpRequest, getJson, plainSchema, postJson, readSse } from './api.js';
import { fill, h, heading, jsonBlock, problem } from './dom.js';
import { errorBlock } from './page-job.js';
import { schemaForm } from './schema-form.js';

function resultBlock(outputs) {
  const list = esrpOutputs(outputs);
  const value = list.length === 1 ? list[0].value : list.map((o) => o.value);
  const facts =
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? h(
          'dl',
          { class: 'facts result' },
          Object.entries(value).map(([k, v]) => [
            h('dt', {}, k),
            h('dd', {}, typeof v === 'object' ? JSON.stringify(v) : String(v)),
          ]),
        )
      : h('p', { class: 'result' }, typeof value === 'object' ? JSON.stringify(value) : String(value));
  return h(
    'section',
    { 'aria-labelledby': 'result-title', 'data-testid': 'run-result' },
    h('h2', { id: 'result-title' }, 'Result'),
    facts,
    h('details', {}, h('summary', {}, 'As JSON'), jsonBlock(value, 'Result as JSON')),
  );
}

function progressText(progress) {
  if (progress && typeof progress === 'object') {
    if (typeof progress.percent === 'number')
      return {
        percent: progress.percent,
        text:
          progress.step && progress.of ? `step ${progress.step} of ${progress.of}` : `${progress.percent}%`,
      };
    if (typeof progress.step === 'number' && typeof progress.of === 'number' && progress.of > 0)
      return {
        percent: Math.round((progress.step * 100) / progress.of),
        text: `step ${progress.step} of ${progress.of}`,
      };
  }
  return { percent: undefined, text: JSON.stringify(progress) };
}

export async function render(main, [verb], signal) {
  const { agents } = await getJson('/agents', signal);
  const verbs = agents
    .flatMap((a) => a.capabilities.map((c) => ({ verb: c.verb, agent: a, capability: c })))
    .sort((x, y) => x.verb.localeCompare(y.verb));
  const picker = h(
    'select',
    { id: 'run-verb', onchange: (e) => (location.hash = `#/run/${encodeURIComponent(e.target.value)}`) },
    h('option', { value: '' }, 'Choose a verb…'),
    verbs.map((v) =>
      h('option', { value: v.verb, selected: v.verb === verb }, `${v.verb} — ${v.agent.name}`),
    ),
  );
  const top = [
    heading(verb ? `Run ${verb}` : 'Run a verb'),
    h('div', { class: 'toolbar' }, h('label', { for: 'run-verb' }, 'Verb'), picker),
  ];
  const chosen = verbs.find((v) => v.verb === verb);
  if (!chosen) {
    fill(
      main,
      top,
      verb
        ? h('p', { role: 'alert' }, `No agent here offers ${verb}.`)
        : h('p', { class: 'muted' }, 'Pick a verb to get a form for its input.'),
    );
    return;
  }
  let projection = {};
  try {
    const spec = await getJson(`/agents/${encodeURIComponent(chosen.agent.id)}/verbs`, signal);
    projection = spec.verbs.find((s) => s.name === verb)?.projection ?? {};
  } catch (error) {
    if (aborted(error)) throw error; // a card without verb specs has no hints: the schema alone
  }
  const formHints = projection['ui:form'] ?? {};
  const streamed = 'ui:stream' in projection;
  const form = schemaForm(plainSchema(chosen.capability.input), formHints, 'run');
  const outcome = h('div', { id: 'run-outcome', 'aria-live': 'polite' });
  const submit = h(
    'button',
    { type: 'submit' },
    typeof formHints.submit === 'string' ? formHints.submit : 'Run',
  );
  const element = h(
    'form',
    {
      class: 'run',
      'aria-labelledby': 'page-title',
      onsubmit: (event) => {
        event.preventDefault();
        void go();
      },
    },
    form.nodes,
    submit,
  );
  fill(
    main,
    top,
    chosen.capability.description ? h('p', {}, chosen.capability.description) : null,
    h(
      'p',
      { class: 'muted' },
      `Agent ${chosen.agent.name} (${chosen.agent.id})${Object.keys(projection).length ? ` · projections: ${Object.keys(projection).join(', ')}` : ''}`,
    ),
    element,
    outcome,
  );

  async function go() {
    let input;
    try {
      input = form.read();
    } catch (error) {
      error.control?.focus();
      return;
    }
    submit.disabled = true;
    const bar = h('progress', { max: '100', 'aria-label': 'Progress' });
    const status = h('p', { role: 'status' }, 'Submitting…');
    const log = h('ol', { class: 'events stream', 'aria-label': 'Events as they come' });
    fill(outcome, status, bar, streamed ? log : null);
    try {
      const accepted = await postJson('/v1/jobs', esrpRequest(verb, input), signal);
      const id = accepted.job.job_id;
      fill(status, 'Job ', h('a', { href: `#/jobs/${encodeURIComponent(id)}` }, id), ' queued');
      let end;
      await readSse(
        `/v1/jobs/${encodeURIComponent(id)}/events`,
        ({ event, data }) => {
          if (streamed || event === 'job_progress') {
            if (!log.isConnected) outcome.append(log);
            log.append(
              h(
                'li',
                {},
                h('strong', {}, event),
                data.progress === undefined ? '' : ` ${progressText(data.progress).text}`,
              ),
            );
          }
          if (event === 'job_started')
            fill(status, 'Job ', h('a', { href: `#/jobs/${encodeURIComponent(id)}` }, id), ' running');
          if (event === 'job_progress') {
            const p = progressText(data.progress);
            if (p.percent !== undefined) bar.value = p.percent;
            bar.setAttribute('aria-valuetext', p.text);
          }
          if (event === 'job_succeeded' || event === 'job_failed' || event === 'job_cancelled')
            end = { event, data };
        },
        signal,
      );
      bar.remove();
      if (end === undefined) {
        fill(
          status,
          'The event stream ended before the job did; see ',
          h('a', { href: `#/jobs/${encodeURIComponent(id)}` }, 'the job'),
          '.',
        );
      } else if (end.event === 'job_succeeded') {
        fill(status, 'Job ', h('a', { href: `#/jobs/${encodeURIComponent(id)}` }, id), ' succeeded');
        outcome.append(resultBlock(end.data.outputs));
      } else {
        fill(status, 'Job ', h('a', { href: `#/jobs/${encodeURIComponent(id)}` }, id), ` ${end.data.state}`);
        outcome.append(errorBlock(end.data.error));
      }
    } catch (error) {
      if (aborted(error)) return;
      bar.remove();
      fill(status, 'The node refused the request.');
      outcome.append(problem(error));
    } finally {
      submit.disabled = false;
    }
  }
}
