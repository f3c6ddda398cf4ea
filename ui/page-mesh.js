// The mesh: this node's libp2p peers (latency, score, addresses) and its gossip topics with
// their mesh sizes from GET /v1/mesh; when the mesh is off, the HTTP peers this node learned
// agent cards from.
import { getJson } from './api.js';
import { fill, h, heading } from './dom.js';
import { ownerOf } from './page-agents.js';

function table(caption, columns, rows) {
  return h(
    'table',
    {},
    h('caption', {}, caption),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        columns.map((c) => h('th', { scope: 'col' }, c)),
      ),
    ),
    h(
      'tbody',
      {},
      rows.length === 0
        ? h('tr', {}, h('td', { colspan: String(columns.length), class: 'muted' }, 'none'))
        : rows.map((r) =>
            h(
              'tr',
              {},
              r.map((cell) => h('td', {}, cell)),
            ),
          ),
    ),
  );
}

async function libp2pMesh(signal) {
  const mesh = await getJson('/v1/mesh', signal);
  return [
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Peer id'),
      h('dd', {}, h('code', {}, mesh.peerId)),
      h('dt', {}, 'Listening on'),
      h('dd', {}, mesh.addresses.join(', ') || '—'),
      h('dt', {}, 'Gossip accepted / rejected'),
      h('dd', {}, `${mesh.accepted} / ${mesh.rejected}`),
    ),
    table(
      'Connected peers',
      ['Peer', 'Latency', 'Score', 'Addresses'],
      mesh.peers.map((p) => [
        h('code', {}, p.peerId),
        p.latencyMs === null ? '—' : `${p.latencyMs} ms`,
        Number(p.score).toFixed(2),
        p.addresses.join(', '),
      ]),
    ),
    table(
      'Topics',
      ['Topic', 'Mesh peers'],
      mesh.topics.map((t) => [h('code', {}, t.topic), String(t.meshPeers)]),
    ),
  ];
}

async function httpPeers(signal) {
  const { agents } = await getJson('/agents?origin=remote', signal);
  const peers = new Map();
  for (const card of agents) {
    const owner = ownerOf(card) ?? 'unknown peer';
    peers.set(owner, [...(peers.get(owner) ?? []), card]);
  }
  return [
    h(
      'p',
      {},
      'The libp2p mesh is off on this node (start it with ',
      h('code', {}, '--mesh'),
      ' or ',
      h('code', {}, 'mesh.enabled: true'),
      '). These are the HTTP peers it learned agents from.',
    ),
    table(
      'HTTP peers',
      ['Peer', 'Agents', 'Verbs'],
      [...peers.entries()].map(([url, cards]) => [
        h('code', {}, url),
        cards.map((c) => c.name).join(', '),
        String(cards.reduce((n, c) => n + c.capabilities.length, 0)),
      ]),
    ),
  ];
}

export async function render(main, _params, signal) {
  const node = await getJson('/ui/api/node', signal);
  const body = node.mesh ? await libp2pMesh(signal) : await httpPeers(signal);
  fill(
    main,
    heading('Mesh'),
    h('p', { class: 'muted' }, 'Node ', h('code', {}, node.node_id)),
    body,
    h(
      'p',
      {},
      h(
        'button',
        { type: 'button', onclick: () => window.dispatchEvent(new HashChangeEvent('hashchange')) },
        'Refresh',
      ),
    ),
  );
}
