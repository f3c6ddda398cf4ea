/**
 * The A2A card routes (issue 14 item 1): `GET /.well-known/agent-card.json` (the node card),
 * its legacy name `/.well-known/agent.json`, and `GET /agents/{id}/.well-known/agent-card.json`;
 * each with `Cache-Control` and a strong `ETag` (`If-None-Match` → 304).
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FaceComponents } from '../face-components.js';
import { agentA2aCard, nodeA2aCard, type A2aCard } from './a2a-card.js';
import { signA2aCard } from './card-signature.js';

/** How long a client may keep a card, seconds. */
export const A2A_CARD_MAX_AGE_S = 60;

function baseUrlOf(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

function sendCard(request: FastifyRequest, reply: FastifyReply, card: A2aCard): FastifyReply {
  const body = JSON.stringify(card);
  const etag = `"${createHash('sha256').update(body).digest('base64url')}"`;
  reply.header('cache-control', `public, max-age=${A2A_CARD_MAX_AGE_S}`).header('etag', etag);
  const match = request.headers['if-none-match'];
  if (match !== undefined && match.split(',').some((tag) => tag.trim() === etag || tag.trim() === '*')) {
    return reply.code(304).send();
  }
  return reply.type('application/json').send(body);
}

/** Registers the card routes on `app`. */
export function registerA2aCardRoutes(app: FastifyInstance, components: FaceComponents): void {
  const { registry } = components.runtime.agents;
  const { nodeSigner } = components;
  const send = (request: FastifyRequest, reply: FastifyReply, card: A2aCard): FastifyReply =>
    sendCard(request, reply, nodeSigner === undefined ? card : signA2aCard(card, nodeSigner));
  const nodeCard = (request: FastifyRequest, reply: FastifyReply): FastifyReply =>
    send(request, reply, nodeA2aCard(components.nodeId, registry.list(), baseUrlOf(request)));
  app.get('/.well-known/agent-card.json', nodeCard);
  app.get('/.well-known/agent.json', nodeCard);
  app.get('/agents/:id/.well-known/agent-card.json', (request, reply) =>
    send(
      request,
      reply,
      agentA2aCard(registry.get((request.params as { id: string }).id), baseUrlOf(request)),
    ),
  );
}
