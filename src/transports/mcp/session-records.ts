/**
 * MCP sessions kept in the event log so they outlive the process (issue 13 item 1;
 * docs/decisions/mcp.md MCP-55, MCP-56): `mcp.session.opened` (the SHA-256 of the session id —
 * never the id —, the principal and tenant that opened it, the client's `initialize` params),
 * `mcp.session.touched` (the session was used; its logging level and resource subscriptions)
 * and `mcp.session.ended`
 * (`DELETE`, idle expiry). Every event of one session has the causation
 * `mcp-session:<hash>`, so a session is found with one read over the log's causation index:
 * a forged id costs one index probe, and nothing is loaded at start. The events are tenant-
 * scoped (the opener's tenant).
 */
import { sha256Hex } from '../../core/hash.js';
import { isJsonObject, type JsonObject } from '../../core/json.js';
import type { Logger } from '../../core/logger.js';
import type { EventLog } from '../../store/event-log.js';
import { recordStreamedCall, streamedCalls, type StreamedCall } from './stream-records.js';

declare module '../../store/event-map.js' {
  interface EventMap {
    /** An MCP session was opened (data: {@link OpenedSession}). */
    'mcp.session.opened': JsonObject;
    /** An MCP session was used (`{session, level?, subscriptions?}`), at most once per touch period. */
    'mcp.session.touched': JsonObject;
    /** An MCP session ended (`{session, reason}`: `deleted` or `idle`). */
    'mcp.session.ended': JsonObject;
  }
}

/** The event types of a session. */
export const MCP_SESSION_EVENTS = {
  opened: 'mcp.session.opened',
  touched: 'mcp.session.touched',
  ended: 'mcp.session.ended',
} as const;

/** Why a session ended. */
export type SessionEndReason = 'deleted' | 'idle';

/** What a session was opened with. */
export interface OpenedSession {
  /** SHA-256 hex of the session id. */
  readonly session: string;
  /** The principal id that opened it. */
  readonly principal: string;
  /** Its tenant, when it has one. */
  readonly tenant?: string;
  /** The client's `initialize` params as sent (protocol version, capabilities, client info). */
  readonly initialize: JsonObject;
}

/** A session found in the log. */
export interface StoredSession extends OpenedSession {
  /** The last use the log knows of (the opening or the latest touch), Unix ms. */
  readonly lastUsed: number;
  /** The log position of that use: the seq of the session's latest event (MCP-63). */
  readonly lastSeq: number;
  /** The logging level the session last asked for. */
  readonly level?: string;
  /** The resources it was subscribed to at its latest touch. */
  readonly subscriptions: readonly string[];
  /** True when it ended (deleted or expired). */
  readonly ended: boolean;
}

/** What a session carries from one process to the next besides its opening. */
export interface SessionState {
  readonly level: string | undefined;
  readonly subscriptions: readonly string[];
}

/** Subscriptions a touch keeps at most, and the longest URI kept (longer ones are not kept). */
export const KEPT_SUBSCRIPTIONS = 100;
const KEPT_URI_LENGTH = 2048;

/** The log-kept sessions. */
export interface SessionRecords {
  /** Records an opening; resolves once it is durable. */
  opened(session: OpenedSession): Promise<void>;
  /** Records a use of session `hash` (its current logging level and subscriptions); not awaited by callers. */
  touched(hash: string, tenant: string | undefined, state: SessionState): Promise<void>;
  /** Records the end of session `hash`. */
  ended(hash: string, tenant: string | undefined, reason: SessionEndReason): Promise<void>;
  /** The session `hash` as the log knows it, or `undefined` when it was never opened. */
  find(hash: string, signal?: AbortSignal): Promise<StoredSession | undefined>;
  /** Records a `tools/call` answered on stream `stream` (MCP-57); never throws, not awaited. */
  call(
    where: { readonly hash: string; readonly stream: string; readonly tenant?: string },
    call: StreamedCall,
  ): void;
  /** The recorded calls of stream `stream` of session `hash`. */
  calls(hash: string, stream: string, signal?: AbortSignal): Promise<StreamedCall[]>;
}

/** The SHA-256 hex of a session id: what the log keeps instead of the id. */
export function sessionHash(id: string): string {
  return sha256Hex(id);
}

/** The causation of every event of session `hash`. */
export function sessionCausation(hash: string): string {
  return `mcp-session:${hash}`;
}

/** Events of one session read at most (openings, touches, the end: a touch per period). */
const MAX_SESSION_EVENTS = 10_000;
const PAGE = 1000;

function tenantField(tenant: string | undefined): { tenant?: string } {
  return tenant === undefined ? {} : { tenant };
}

/** The opening in `data`, or `undefined` when it is not one this face wrote. */
function openedOf(data: unknown): OpenedSession | undefined {
  if (!isJsonObject(data)) return undefined;
  const { session, principal, tenant, initialize } = data;
  if (typeof session !== 'string' || typeof principal !== 'string' || !isJsonObject(initialize))
    return undefined;
  return { session, principal, initialize, ...(typeof tenant === 'string' ? { tenant } : {}) };
}

/** Sessions kept in `log`; a failed touch or end is logged to `logger`, never thrown. */
export function sessionRecords(log: EventLog, logger?: Logger): SessionRecords {
  const warn = (what: string, error: unknown): void => {
    logger?.warn(
      { event: 'mcp.session_record_failed', what, error: String(error) },
      'mcp: session event not recorded',
    );
  };
  return {
    async opened(session) {
      await log.append({
        type: MCP_SESSION_EVENTS.opened,
        data: { ...session },
        causation: sessionCausation(session.session),
        ...tenantField(session.tenant),
      });
    },
    async touched(hash, tenant, { level, subscriptions }) {
      const kept = subscriptions.filter((uri) => uri.length <= KEPT_URI_LENGTH).slice(0, KEPT_SUBSCRIPTIONS);
      try {
        await log.append({
          type: MCP_SESSION_EVENTS.touched,
          data: {
            session: hash,
            ...(level === undefined ? {} : { level }),
            ...(kept.length === 0 ? {} : { subscriptions: kept }),
          },
          causation: sessionCausation(hash),
          ...tenantField(tenant),
        });
      } catch (error) {
        warn('touched', error);
      }
    },
    async ended(hash, tenant, reason) {
      try {
        await log.append({
          type: MCP_SESSION_EVENTS.ended,
          data: { session: hash, reason },
          causation: sessionCausation(hash),
          ...tenantField(tenant),
        });
      } catch (error) {
        warn('ended', error);
      }
    },
    call(where, call) {
      recordStreamedCall(log, where, call, logger);
    },
    calls(hash, stream, signal) {
      return streamedCalls(log, hash, stream, signal);
    },
    async find(hash, signal) {
      let opened: OpenedSession | undefined;
      let lastUsed = 0;
      let lastSeq = 0;
      let level: string | undefined;
      let subscriptions: string[] = [];
      let ended = false;
      let afterSeq = 0;
      for (let read = 0; read < MAX_SESSION_EVENTS; read += PAGE) {
        const events = await log.read({
          causation: sessionCausation(hash),
          typePrefix: 'mcp.session.',
          afterSeq,
          limit: PAGE,
          ...(signal === undefined ? {} : { signal }),
        });
        for (const event of events) {
          const at = Date.parse(event.time);
          if (event.type === MCP_SESSION_EVENTS.opened) {
            const found = openedOf(event.data);
            // only the opening naming this hash counts (the causation is not a secret)
            if (found?.session === hash && opened === undefined) opened = found;
          } else if (event.type === MCP_SESSION_EVENTS.ended) ended = true;
          else if (event.type === MCP_SESSION_EVENTS.touched && isJsonObject(event.data)) {
            const given = event.data['level'];
            level = typeof given === 'string' ? given : undefined;
            const uris = event.data['subscriptions'];
            subscriptions = Array.isArray(uris)
              ? uris.filter((uri): uri is string => typeof uri === 'string').slice(0, KEPT_SUBSCRIPTIONS)
              : [];
          }
          if (Number.isFinite(at)) lastUsed = Math.max(lastUsed, at);
          lastSeq = Math.max(lastSeq, event.seq);
        }
        const last = events.at(-1);
        if (last === undefined || events.length < PAGE) break;
        afterSeq = last.seq;
      }
      if (opened === undefined) return undefined;
      return {
        ...opened,
        lastUsed,
        lastSeq,
        ended,
        subscriptions,
        ...(level === undefined ? {} : { level }),
      };
    },
  };
}
