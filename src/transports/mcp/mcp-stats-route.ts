/**
 * `GET /v1/stats/mcp` (issue 13 item 7, seed 004 Req 13.5; docs/decisions/mcp.md MCP-16): the
 * MCP tool-call aggregates of the caller's tenant ({@link McpStats}), authenticated like every
 * other `/v1` route (bearer JWT, API key or UCAN; 401 otherwise), refusals in the plain
 * `{error: {code, message}}` form of the node's read-only routes.
 */
import type { FastifyInstance } from 'fastify';
import { PlexusError } from '../../core/errors.js';
import type { FaceScope } from '../http/face-scope.js';
import { DISCOVERY_ROUTE } from '../http/discovery-routes.js';
import type { McpStats } from './mcp-stats.js';

/** The path of the aggregates. */
export const MCP_STATS_PATH = '/v1/stats/mcp';

/** Registers `GET /v1/stats/mcp` on `app` (a context that authenticates every request). */
export function registerMcpStatsRoute(app: FastifyInstance, scope: FaceScope, stats: McpStats): void {
  app.get(MCP_STATS_PATH, DISCOVERY_ROUTE, async (request, reply) => {
    const principal = scope.principalOf(request);
    if (principal === undefined) throw new PlexusError('UNAUTHORIZED', 'the request was not authenticated');
    return reply.send(await stats.view(principal.tenantId));
  });
}
