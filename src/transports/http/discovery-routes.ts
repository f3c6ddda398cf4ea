/**
 * Discovery (Emergence §5's registry contract, Nova26 Req. 1): the agent cards this node
 * knows, local and remote.
 *
 * - `GET /agents` → `{agents: AgentCard[]}` sorted by id; `?capability=<verb>` keeps the
 *   cards offering that verb, `?origin=local|remote` the cards of that origin (a peer
 *   directory polls `?origin=local` so cards learned from other nodes are not echoed back).
 *   When no card offers the capability, the node's discovery is asked first (the mesh's DHT,
 *   bounded by `mesh.discoveryTimeoutMs`), and the cards it found are answered.
 * - `GET /agents/{id}` → the card; 404 `{error: {code: 'NOT_FOUND', message}}` when unknown.
 * - `GET /agents/{id}/capabilities` → `{id, revision, capabilities}`.
 * - `GET /agents/{id}/verbs` → `{id, revision, verbs}`: the verb specs the agent registered
 *   (effects, scopes, category, eras, projection hints — what `plexus call` reads its hints from).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { PlexusError } from '../../core/errors.js';
import type { AgentCard } from '../../core/records/agent-card.js';
import type { FaceScope } from './face-scope.js';
import type { FaceRouteConfig } from './faces.js';

/** The route config of the discovery routes. */
export const DISCOVERY_ROUTE: { readonly config: FaceRouteConfig } = { config: { face: 'discovery' } };

function queryText(request: FastifyRequest, key: string): string | undefined {
  const value = (request.query as Record<string, unknown> | undefined)?.[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') {
    throw new PlexusError('INVALID_PARAMS', `query parameter ${key} must be given once, non-empty`, {
      details: { pointer: `/query/${key}` },
    });
  }
  return value;
}

function idOf(request: FastifyRequest): string {
  return (request.params as { id: string }).id;
}

/** Registers the discovery routes on `app`. */
export function registerDiscoveryRoutes(app: FastifyInstance, scope: FaceScope): void {
  const { registry } = scope.components.runtime.agents;

  const { discovery } = scope.components.runtime.agents;

  app.get('/agents', DISCOVERY_ROUTE, async (request, reply) => {
    const capability = queryText(request, 'capability');
    const origin = queryText(request, 'origin');
    if (origin !== undefined && origin !== 'local' && origin !== 'remote') {
      throw new PlexusError(
        'INVALID_PARAMS',
        `origin must be local or remote, got ${JSON.stringify(origin.slice(0, 40))}`,
        {
          details: { pointer: '/query/origin' },
        },
      );
    }
    // A capability no card here offers is looked for by the node's discovery (the mesh's DHT).
    let cards: readonly AgentCard[] =
      capability === undefined
        ? registry.list()
        : origin === 'local'
          ? registry.byCapability(capability)
          : await discovery.providers(capability);
    if (origin !== undefined) cards = cards.filter((card) => (card.origin ?? 'local') === origin);
    return reply.send({ agents: cards });
  });

  app.get('/agents/:id', DISCOVERY_ROUTE, (request, reply) => reply.send(registry.get(idOf(request))));

  app.get('/agents/:id/capabilities', DISCOVERY_ROUTE, (request, reply) => {
    const card = registry.get(idOf(request));
    return reply.send({ id: card.id, revision: card.revision ?? 0, capabilities: card.capabilities });
  });

  app.get('/agents/:id/verbs', DISCOVERY_ROUTE, (request, reply) => {
    const card = registry.get(idOf(request));
    return reply.send({
      id: card.id,
      revision: card.revision ?? 0,
      verbs: registry.find(card.id)?.verbs ?? [],
    });
  });
}
