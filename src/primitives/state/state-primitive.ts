/**
 * The Hyperspace state primitive (seed 003 §4.1): session lifecycle, per-session key/value
 * state and episode recording. Every change is an event (`state.*`); reads come from the
 * `state.sessions` projection, so `plexus replay --verify` rebuilds it.
 *
 * Sessions belong to the tenant that created them: a session of another tenant is answered
 * as not found (−32001), like an unknown id.
 */
import { randomUUID } from 'node:crypto';
import { PlexusError } from '../../core/errors.js';
import type { JsonObject, JsonValue } from '../../core/json.js';
import type { HandlerContext } from '../../runtime/index.js';
import type { Projection } from '../../store/projection.js';
import { projectionView, type ProjectionView } from '../../store/projection-view.js';
import { keyedLock } from '../keyed-lock.js';
import { fromMicros, toMicros } from '../money.js';
import { definePrimitive, type Primitive, type PrimitiveComponents } from '../primitive.js';
import {
  STATE_EVENTS,
  sessionsProjection,
  type SessionCreatedData,
  type SessionRecord,
  type SessionsState,
} from './state-projection.js';
import {
  CREATE_SESSION_INPUT,
  CREATE_SESSION_OUTPUT,
  END_SESSION_OUTPUT,
  GET_STATE_INPUT,
  GET_STATE_OUTPUT,
  RECORD_EPISODE_INPUT,
  RECORD_EPISODE_OUTPUT,
  SESSION_INFO_OUTPUT,
  SESSION_ONLY_INPUT,
  SET_STATE_INPUT,
  SET_STATE_OUTPUT,
} from './state-schemas.js';

/**
 * Read access to sessions, for the primitives that work on a session (guard, recursive).
 * A session is visible only to the tenant that created it.
 */
export interface SessionDirectory {
  /** The session, or `undefined` when there is none with that id for `tenant`. */
  get(sessionId: string, tenant: string | undefined): SessionRecord | undefined;
  /**
   * The session, or throws.
   * @throws PlexusError `SESSION_NOT_FOUND` (−32001) with `details.sessionId`.
   */
  require(sessionId: string, tenant: string | undefined): SessionRecord;
}

/** Options of the state primitive. */
export interface StateInit {
  /** Budget limit, in units, of sessions created without `budget`. @default 1 */
  readonly defaultBudget?: number;
  /** Most keys one session may hold. @default 1000 */
  readonly maxKeys?: number;
  /** Largest value (its JSON text, in UTF-16 code units) `setState` accepts. @default 65536 */
  readonly maxValueLength?: number;
  /** Largest `metadata` (its JSON text) `createSession` accepts. @default 16384 */
  readonly maxMetadataLength?: number;
  /** Most episodes one session may hold. @default 10000 */
  readonly maxEpisodes?: number;
}

/** The state primitive, with its session directory for the other primitives. */
export interface StatePrimitive extends Primitive {
  /** Sessions as the `state.sessions` projection holds them. */
  readonly sessions: SessionDirectory;
}

/** The projections of the state primitive (for `plexus replay --verify`). */
export const STATE_PROJECTIONS: readonly Projection<unknown>[] = [sessionsProjection];

/** A session directory over a live `state.sessions` view. */
export function sessionDirectory(view: ProjectionView<SessionsState>): SessionDirectory {
  const get = (sessionId: string, tenant: string | undefined): SessionRecord | undefined => {
    const session = view.state().sessions.get(sessionId);
    return session !== undefined && session.tenant === (tenant ?? null) ? session : undefined;
  };
  return {
    get,
    require(sessionId, tenant) {
      const session = get(sessionId, tenant);
      if (session === undefined) {
        throw new PlexusError(
          'SESSION_NOT_FOUND',
          `Session not found: no session ${JSON.stringify(sessionId)}`,
          {
            details: { sessionId },
          },
        );
      }
      return session;
    },
  };
}

/**
 * Throws when the session has ended.
 * @throws PlexusError `PRECONDITION_FAILED` with `details.sessionId`, `details.endedAt`.
 */
export function requireActive(session: SessionRecord, action: string): void {
  if (session.endedAt === undefined) return;
  throw new PlexusError(
    'PRECONDITION_FAILED',
    `session ${session.sessionId} ended at ${new Date(session.endedAt).toISOString()}; cannot ${action} (create a new session)`,
    { details: { sessionId: session.sessionId, endedAt: new Date(session.endedAt).toISOString() } },
  );
}

function tenantOf(ctx: HandlerContext): { tenant?: string } {
  const tenant = ctx.envelope.tenantId;
  return tenant === undefined ? {} : { tenant };
}

function tooLarge(field: string, length: number, limit: number): PlexusError {
  return new PlexusError(
    'INVALID_PARAMS',
    `${field} is too large: its JSON text has ${length} characters; the limit is ${limit}`,
    {
      details: {
        field,
        problems: [{ pointer: `/${field}`, message: `must have at most ${limit} characters as JSON` }],
      },
    },
  );
}

/** The SessionInfo answer of `state.getSession`. */
export function sessionInfo(s: SessionRecord): JsonObject {
  const out: JsonObject = { sessionId: s.sessionId, status: s.endedAt === undefined ? 'active' : 'ended' };
  if (s.agentName !== undefined) out.agentName = s.agentName;
  if (s.agentType !== undefined) out.agentType = s.agentType;
  if (s.peerId !== undefined) out.peerId = s.peerId;
  if (s.model !== undefined) out.model = s.model;
  if (s.metadata !== undefined) out.metadata = s.metadata;
  out.createdAt = new Date(s.createdAt).toISOString();
  if (s.endedAt !== undefined) out.endedAt = new Date(s.endedAt).toISOString();
  if (s.duration !== undefined) out.duration = s.duration;
  out.budget = fromMicros(s.budget);
  out.keys = [...s.state.keys()];
  out.episodes = s.episodes.map((e) => ({
    episodeId: e.episodeId,
    outcome: e.outcome,
    reward: e.reward,
    recordedAt: new Date(e.at).toISOString(),
  }));
  return out;
}

/**
 * Creates the state primitive.
 *
 * @throws PlexusError `INVALID_PARAMS` when `init.defaultBudget` is not a valid amount.
 * @example
 * const state = statePrimitive({ log });
 * const guard = guardPrimitive({ log, sessions: state.sessions });
 */
export function statePrimitive(components: PrimitiveComponents, init: StateInit = {}): StatePrimitive {
  const { log } = components;
  const now = components.now ?? Date.now;
  const defaultBudget = toMicros(init.defaultBudget ?? 1, 'defaultBudget');
  const maxKeys = init.maxKeys ?? 1000;
  const maxValueLength = init.maxValueLength ?? 65_536;
  const maxMetadataLength = init.maxMetadataLength ?? 16_384;
  const maxEpisodes = init.maxEpisodes ?? 10_000;
  const view = projectionView({ log, projection: sessionsProjection });
  const sessions = sessionDirectory(view);
  const lock = keyedLock();

  const primitive = definePrimitive({
    name: 'state',
    title: 'Hyperspace state',
    views: [view],
    methods: [
      {
        method: 'createSession',
        description: 'Opens a session (optionally with a budget limit in units) and answers its id.',
        input: CREATE_SESSION_INPUT,
        output: CREATE_SESSION_OUTPUT,
        category: 'mutation',
        effects: { writes: ['state/sessions'] },
        async handler(input, ctx) {
          const p = input as {
            agentName?: string;
            agentType?: string;
            peerId?: string;
            model?: string;
            metadata?: JsonObject;
            budget?: number;
          };
          const budget = p.budget === undefined ? defaultBudget : toMicros(p.budget, 'budget');
          if (p.metadata !== undefined) {
            const length = JSON.stringify(p.metadata).length;
            if (length > maxMetadataLength) throw tooLarge('metadata', length, maxMetadataLength);
          }
          const sessionId = randomUUID();
          const at = now();
          const data: { -readonly [K in keyof SessionCreatedData]?: SessionCreatedData[K] } = {
            sessionId,
            at,
            budget,
          };
          if (p.agentName !== undefined) data.agentName = p.agentName;
          if (p.agentType !== undefined) data.agentType = p.agentType;
          if (p.peerId !== undefined) data.peerId = p.peerId;
          if (p.model !== undefined) data.model = p.model;
          if (p.metadata !== undefined) data.metadata = p.metadata;
          const event = await log.append({
            type: STATE_EVENTS.sessionCreated,
            data: data as SessionCreatedData, // every required key is set above
            ...tenantOf(ctx),
          });
          await view.waitFor(event.seq);
          return { sessionId, createdAt: new Date(at).toISOString() };
        },
      },
      {
        method: 'getSession',
        description: 'Answers everything known about a session (SessionInfo).',
        input: SESSION_ONLY_INPUT,
        output: SESSION_INFO_OUTPUT,
        category: 'query',
        effects: { reads: ['state/sessions'] },
        handler(input, ctx) {
          const { sessionId } = input as { sessionId: string };
          return sessionInfo(sessions.require(sessionId, ctx.envelope.tenantId));
        },
      },
      {
        method: 'setState',
        description: 'Stores a JSON value under a key of a session.',
        input: SET_STATE_INPUT,
        output: SET_STATE_OUTPUT,
        category: 'mutation',
        effects: { reads: ['state/sessions'], writes: ['state/values'] },
        handler(input, ctx) {
          const { sessionId, key, value } = input as { sessionId: string; key: string; value: JsonValue };
          const length = JSON.stringify(value).length;
          if (length > maxValueLength) throw tooLarge('value', length, maxValueLength);
          return lock.run(sessionId, async () => {
            const session = sessions.require(sessionId, ctx.envelope.tenantId);
            requireActive(session, 'set state');
            if (!session.state.has(key) && session.state.size >= maxKeys) {
              throw new PlexusError(
                'PRECONDITION_FAILED',
                `session ${sessionId} already holds ${maxKeys} keys, the limit; reuse a key`,
                {
                  details: { sessionId, limit: maxKeys },
                },
              );
            }
            const event = await log.append({
              type: STATE_EVENTS.stateSet,
              data: { sessionId, key, value, at: now() },
              ...tenantOf(ctx),
            });
            await view.waitFor(event.seq);
            return { updated: true };
          });
        },
      },
      {
        method: 'getState',
        description: 'Answers the value stored under a key of a session (null and exists: false when unset).',
        input: GET_STATE_INPUT,
        output: GET_STATE_OUTPUT,
        category: 'query',
        effects: { reads: ['state/sessions', 'state/values'] },
        handler(input, ctx) {
          const { sessionId, key } = input as { sessionId: string; key: string };
          const session = sessions.require(sessionId, ctx.envelope.tenantId);
          const exists = session.state.has(key);
          return { value: exists ? (session.state.get(key) ?? null) : null, exists };
        },
      },
      {
        method: 'endSession',
        description: 'Ends a session; answers whether this call ended it and its duration in ms.',
        input: SESSION_ONLY_INPUT,
        output: END_SESSION_OUTPUT,
        category: 'mutation',
        effects: { writes: ['state/sessions'] },
        handler(input, ctx) {
          const { sessionId } = input as { sessionId: string };
          return lock.run(sessionId, async () => {
            const session = sessions.require(sessionId, ctx.envelope.tenantId);
            if (session.endedAt !== undefined) return { ended: false, duration: session.duration ?? 0 };
            const at = now();
            const duration = Math.max(0, at - session.createdAt);
            const event = await log.append({
              type: STATE_EVENTS.sessionEnded,
              data: { sessionId, at, duration },
              ...tenantOf(ctx),
            });
            await view.waitFor(event.seq);
            return { ended: true, duration };
          });
        },
      },
      {
        method: 'recordEpisode',
        description: 'Records an episode outcome with a reward in [-1, 1]; answers its id.',
        input: RECORD_EPISODE_INPUT,
        output: RECORD_EPISODE_OUTPUT,
        category: 'mutation',
        effects: { reads: ['state/sessions'], writes: ['state/episodes'] },
        handler(input, ctx) {
          const { sessionId, outcome, reward } = input as {
            sessionId: string;
            outcome: string;
            reward: number;
          };
          return lock.run(sessionId, async () => {
            const session = sessions.require(sessionId, ctx.envelope.tenantId);
            requireActive(session, 'record an episode');
            if (session.episodes.length >= maxEpisodes) {
              throw new PlexusError(
                'PRECONDITION_FAILED',
                `session ${sessionId} already holds ${maxEpisodes} episodes, the limit`,
                {
                  details: { sessionId, limit: maxEpisodes },
                },
              );
            }
            const episodeId = randomUUID();
            const event = await log.append({
              type: STATE_EVENTS.episodeRecorded,
              data: { sessionId, episodeId, outcome, reward, at: now() },
              ...tenantOf(ctx),
            });
            await view.waitFor(event.seq);
            return { episodeId };
          });
        },
      },
    ],
  });
  return { ...primitive, sessions };
}
