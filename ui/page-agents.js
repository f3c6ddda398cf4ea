// Agents and their cards: verbs (with input and output schemas), origin, owning peer, revision.
import { getJson } from './api.js';
import { fill, h, heading, jsonBlock } from './dom.js';

const PEER_EXTENSION = '_x_plexus_peer';

/** The peer (base URL) a remote card was learned from, or undefined. */
export function ownerOf(card) {
  const owner = card.extensions?.[PEER_EXTENSION];
  return card.origin === 'remote' && typeof owner === 'string' ? owner : undefined;
}

function verbRow(capability) {
  return h(
    'li',
    { class: 'verb' },
    h(
      'div',
      { class: 'verb-head' },
      h('code', {}, capability.verb),
      ' ',
      h(
        'a',
        { href: `#/run/${encodeURIComponent(capability.verb)}`, class: 'button small' },
        'Run',
        h('span', { class: 'sr' }, ` ${capability.verb}`),
      ),
    ),
    capability.description ? h('p', { class: 'muted' }, capability.description) : null,
    h(
      'details',
      {},
      h('summary', {}, 'Input schema'),
      jsonBlock(capability.input, `Input schema of ${capability.verb}`),
    ),
    h(
      'details',
      {},
      h('summary', {}, 'Output schema'),
      jsonBlock(capability.output, `Output schema of ${capability.verb}`),
    ),
  );
}

function card(agent) {
  const owner = ownerOf(agent);
  return h(
    'article',
    { class: 'card', 'aria-labelledby': `agent-${agent.id}` },
    h('h2', { id: `agent-${agent.id}` }, agent.name, ' ', h('code', { class: 'muted' }, agent.id)),
    agent.description ? h('p', {}, agent.description) : null,
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Origin'),
      h('dd', {}, agent.origin ?? 'local'),
      h('dt', {}, 'Owning peer'),
      h('dd', {}, owner ?? 'this node'),
      h('dt', {}, 'Revision'),
      h('dd', {}, String(agent.revision ?? 0)),
      h('dt', {}, 'Version'),
      h('dd', {}, agent.version),
      h('dt', {}, 'Protocols'),
      h('dd', {}, (agent.protocols ?? []).join(', ') || '—'),
    ),
    h('h3', {}, `Verbs (${agent.capabilities.length})`),
    h('ul', { class: 'verbs' }, agent.capabilities.map(verbRow)),
  );
}

export async function render(main, _params, signal) {
  const { agents } = await getJson('/agents', signal);
  const filter = h('input', { id: 'agent-filter', type: 'search', placeholder: 'name, id or verb' });
  const list = h('div', { class: 'cards' });
  const count = h('p', { class: 'muted', 'aria-live': 'polite' });
  const draw = () => {
    const q = filter.value.trim().toLowerCase();
    const shown = agents.filter(
      (a) =>
        q === '' ||
        a.id.toLowerCase().includes(q) ||
        a.name.toLowerCase().includes(q) ||
        a.capabilities.some((c) => c.verb.toLowerCase().includes(q)),
    );
    fill(count, `${shown.length} of ${agents.length} agents`);
    fill(list, shown.map(card));
  };
  filter.addEventListener('input', draw);
  fill(
    main,
    heading('Agents'),
    h('div', { class: 'toolbar' }, h('label', { for: 'agent-filter' }, 'Filter agents'), filter),
    count,
    list,
  );
  draw();
}
