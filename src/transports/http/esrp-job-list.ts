/**
 * `GET /v1/jobs` on the ESRP face (docs/decisions/job-listing.md): the caller's jobs, newest
 * first, one page at a time.
 *
 * Query parameters (each at most once, except `state`):
 * - `order`: `status` (the default: by each job's latest status change, as A2A's ListTasks) or
 *   `submitted` (by submission: jobs never move between pages), JL-11.
 * - `state`: comma-separated; ESRP names (`queued`, `started`, `succeeded`, `failed`,
 *   `cancelled` — `started` includes INPUT_REQUIRED and AUTH_REQUIRED, `failed` includes
 *   REJECTED, as the ESRP face shows them) or D8 names (`SUBMITTED`, `WORKING`, …, any case).
 * - `verb`: an exact verb or a prefix pattern `demo.*`.
 * - `since`: RFC 3339; jobs created at or after it.
 * - `limit`: 1 … 500, default 50.
 * - `cursor`: the `next_cursor` of the previous page (same filters).
 *
 * Answer: `200 {esrp_version, jobs: [...], next_cursor}`; each item is the ESRP job form of
 * `GET /v1/jobs/{id}`; `next_cursor` is `null` when there is nothing more (a page may be short,
 * even empty, while it is not). A caller sees only the jobs of its own tenant (the rule of
 * `GET /v1/jobs/{id}`). A bad parameter is a 400 in the ESRP error form with
 * `details.parameter` and `details.accepted`.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ESRP_VERSION } from '../../core/esrp/model.js';
import type { JsonObject } from '../../core/json.js';
import {
  JOB_LIST_ORDERS,
  MAX_JOB_LIST_LIMIT,
  badListParameter,
  listTenantOf,
  parseStateList,
  type JobListOrder,
  type JobListQuery,
} from '../../runtime/jobs/job-list-query.js';
import { esrpJobAnswer } from './esrp-answer.js';
import type { FaceScope } from './face-scope.js';
import type { FaceRouteConfig } from './faces.js';

/** The query parameters `GET /v1/jobs` accepts. */
export const JOB_LIST_PARAMETERS = ['order', 'state', 'verb', 'since', 'limit', 'cursor'] as const;

function single(name: string, value: unknown): string {
  if (typeof value !== 'string') {
    throw badListParameter(name, 'give it once', `one ${name} parameter`);
  }
  return value;
}

/**
 * The runtime query of a `GET /v1/jobs` query string (without the tenant).
 *
 * @throws PlexusError `INVALID_PARAMS` (`details.parameter`, `details.accepted`) for an unknown
 *   or repeated parameter or a bad value.
 */
export function jobListQueryOf(raw: unknown): JobListQuery {
  const params = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const out: { -readonly [K in keyof JobListQuery]: JobListQuery[K] } = {};
  for (const [name, value] of Object.entries(params)) {
    switch (name) {
      case 'state':
        out.states = parseStateList(Array.isArray(value) ? value.map(String) : [String(value)]);
        break;
      case 'order': {
        const order = single(name, value);
        if (!(JOB_LIST_ORDERS as readonly string[]).includes(order)) {
          throw badListParameter(
            'order',
            `${JSON.stringify(order.slice(0, 40))} is not a listing order`,
            JOB_LIST_ORDERS.join(', '),
          );
        }
        out.order = order as JobListOrder;
        break;
      }
      case 'verb':
        out.verb = single(name, value);
        break;
      case 'since':
        out.since = single(name, value);
        break;
      case 'cursor':
        out.cursor = single(name, value);
        break;
      case 'limit': {
        const text = single(name, value);
        if (!/^[1-9]\d{0,5}$/.test(text) || Number(text) > MAX_JOB_LIST_LIMIT) {
          throw badListParameter(
            'limit',
            `${JSON.stringify(text.slice(0, 20))} is not a page size`,
            `a whole number from 1 to ${MAX_JOB_LIST_LIMIT}`,
          );
        }
        out.limit = Number(text);
        break;
      }
      default:
        throw badListParameter(
          name.slice(0, 40),
          'unknown query parameter',
          `the parameters ${JOB_LIST_PARAMETERS.join(', ')}`,
        );
    }
  }
  return out;
}

/** Registers `GET /v1/jobs` on `app`. */
export function registerEsrpJobList(
  app: FastifyInstance,
  scope: FaceScope,
  route: { readonly config: FaceRouteConfig },
): void {
  const { runtime } = scope.components;
  app.get('/v1/jobs', route, async (request: FastifyRequest, reply) => {
    const query = jobListQueryOf(request.query);
    const tenant = listTenantOf(scope.principalOf(request));
    const page = await runtime.jobs.list(tenant === undefined ? query : { ...query, tenant });
    const body: JsonObject = {
      esrp_version: ESRP_VERSION,
      jobs: page.jobs.map((job) => esrpJobAnswer(job, runtime.agents.registry).body),
      next_cursor: page.nextCursor ?? null,
    };
    return reply.code(200).type('application/json; charset=utf-8').send(body);
  });
}
