/**
 * The open MCP sessions of a node (issue 13 item 1, docs/decisions/mcp.md MCP-4, MCP-55,
 * MCP-56): each has an unguessable id (32 random bytes, base64url), the credential that opened
 * it (principal id and tenant), its SDK server and transport, and the time it was last used. A
 * session idle longer than the idle limit ends; a sweep timer (unref'd) finds them and is
 * cleared on close. With {@link SessionRecords} the sessions are kept in the event log: an
 * opening, a touch at most once per touch period (and when the logging level changes) and an
 * end (`DELETE`, idle expiry; not the node's stop), so after a restart a request naming a
 * session this process does not have revives it — same credential, not ended, not idle past
 * the limit — with a fresh protocol server brought to the initialised state by replaying the
 * client's recorded `initialize` (and `logging/setLevel`, `resources/subscribe`) through its
 * transport.
 */
import { randomBytes } from 'node:crypto';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { JsonObject } from '../../core/json.js';
import type { Principal } from '../../runtime/index.js';
import type { SessionServer } from './mcp-server.js';
import { SessionTransport, type MessageSink } from './session-transport.js';
import { SessionReplay } from './sse-replay.js';
import { sessionHash, type SessionEndReason, type SessionRecords } from './session-records.js';
import type { StreamedCall } from './stream-records.js';

/** One open session. */
export interface McpSession {
  readonly id: string;
  /** SHA-256 hex of the id: what the log keeps (MCP-55). */
  readonly hash: string;
  /** Who opened it: `principal id` + `\n` + `tenant` ({@link ownerKey}). */
  readonly owner: string;
  /** The opener's tenant. */
  readonly tenant: string | undefined;
  readonly server: SessionServer;
  readonly transport: SessionTransport;
  /** Its SSE streams and the events kept for `Last-Event-ID` (MCP-15). */
  readonly replay: SessionReplay;
  /** Last use, Unix ms. */
  lastUsed: number;
  /** When the log last heard of a use, Unix ms. */
  touchedAt: number;
  /** The logging level the client asked for. */
  level: string | undefined;
  /** The resources the client is subscribed to. */
  subscriptions: readonly string[];
  /** True for a session revived from the log after a restart. */
  readonly revived: boolean;
  /**
   * For a revived session, the log's seq of its last use the log knew at revival: what happened
   * after it may not have reached the client (MCP-63).
   */
  seenSeq?: number;
  /** True while its recorded state is replayed into it (changes then are not news to the log). */
  reviving: boolean;
}

/** What a session's server tells the session table (bound when the server is made). */
export interface SessionHooks {
  /** The client set its logging level. */
  levelChanged(level: string): void;
  /** The client's resource subscriptions changed (every subscribed URI). */
  subscriptionsChanged(uris: readonly string[]): void;
  /**
   * A `tools/call` (request `id`) is about to submit its job with idempotency key `key`; true
   * when its answer goes to a POST stream, so the call was recorded for resumption (MCP-57).
   */
  callStarted(id: RequestId, call: Omit<StreamedCall, 'id'>): boolean;
}

/** The owner key of a principal: its id and its tenant. */
export function ownerKey(principal: Principal): string {
  return `${principal.id}\n${principal.tenantId ?? ''}`;
}

/** A new session id: 32 bytes of crypto randomness, base64url (visible ASCII, as the spec asks). */
export function newSessionId(): string {
  return randomBytes(32).toString('base64url');
}

/** The shape of an id {@link newSessionId} makes: anything else is not looked up. */
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

/** The JSON-RPC id of the requests replayed into a revived session's server. */
const REVIVAL_ID = 'plexus/revival';

/** Options of {@link McpSessions}. */
export interface McpSessionsInit {
  /** Idle time after which a session ends, ms. */
  readonly idleMs: number;
  /** The clock, Unix ms. @default Date.now */
  readonly now?: () => number;
  /** Where sessions are kept to outlive the process; absent: in memory only. */
  readonly records?: SessionRecords;
}

/** Hands `message` to `transport` and resolves with its answer. */
function replayed(transport: SessionTransport, message: JSONRPCMessage): Promise<JSONRPCMessage> {
  return new Promise((resolve) => {
    const sink: MessageSink = { streams: false, write: resolve };
    transport.receive(message, sink);
  });
}

/** The session table. */
export class McpSessions {
  readonly #sessions = new Map<string, McpSession>();
  readonly #reviving = new Map<string, Promise<McpSession | undefined>>();
  readonly #now: () => number;
  readonly #touchMs: number;
  #timer: NodeJS.Timeout | undefined;

  constructor(readonly init: McpSessionsInit) {
    this.#now = init.now ?? Date.now;
    this.#touchMs = Math.max(1000, Math.floor(init.idleMs / 4));
  }

  /**
   * Opens a session owned by `principal` with the server `make` builds; `initialize`: the
   * client's params, recorded (awaited) when the sessions are kept in the log.
   */
  async open(
    principal: Principal,
    make: (hooks: SessionHooks) => SessionServer,
    initialize?: JsonObject,
  ): Promise<McpSession> {
    const id = newSessionId();
    const session = await this.#make(id, principal, make, false);
    const records = this.init.records;
    if (records !== undefined && initialize !== undefined) {
      try {
        await records.opened({
          session: session.hash,
          principal: principal.id,
          ...(principal.tenantId === undefined ? {} : { tenant: principal.tenantId }),
          initialize,
        });
      } catch (error) {
        await this.end(id);
        throw error;
      }
    }
    return session;
  }

  /** The session `id` when `principal` owns it (touched), else `undefined`. */
  use(id: string, principal: Principal): McpSession | undefined {
    const session = this.#sessions.get(id);
    if (session === undefined || session.owner !== ownerKey(principal)) return undefined;
    const now = this.#now();
    session.lastUsed = now;
    if (now - session.touchedAt >= this.#touchMs) this.#touch(session);
    return session;
  }

  /**
   * Revives session `id` from the log after a restart (MCP-56), when `principal` opened it, it
   * did not end and was used within the idle limit (plus one touch period: the log hears of
   * uses at most once per period); else `undefined`.
   */
  revive(
    id: string,
    principal: Principal,
    make: (hooks: SessionHooks) => SessionServer,
  ): Promise<McpSession | undefined> {
    const live = this.use(id, principal);
    if (live !== undefined) return Promise.resolve(live);
    if (this.init.records === undefined || !SESSION_ID.test(id) || this.#sessions.has(id))
      return Promise.resolve(undefined);
    let pending = this.#reviving.get(id);
    if (pending === undefined) {
      pending = this.#revive(id, principal, make).finally(() => this.#reviving.delete(id));
      this.#reviving.set(id, pending);
    }
    return pending.then((session) => (session === undefined ? undefined : this.use(id, principal)));
  }

  /** Every open session. */
  all(): McpSession[] {
    return [...this.#sessions.values()];
  }

  /** Ends session `id`; with `reason`, the end is recorded (a stopping node records none). */
  async end(id: string, reason?: SessionEndReason): Promise<void> {
    const session = this.#sessions.get(id);
    this.#sessions.delete(id);
    if (session !== undefined && reason !== undefined)
      await this.init.records?.ended(session.hash, session.tenant, reason);
    await session?.server.close();
  }

  /** Ends the sessions idle past the limit. */
  async sweep(): Promise<void> {
    const limit = this.#now() - this.init.idleMs;
    for (const session of this.all()) if (session.lastUsed <= limit) await this.end(session.id, 'idle');
  }

  /** Ends every session (not recorded: they live on in the log) and the sweep timer. */
  async close(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    for (const session of this.all()) await this.end(session.id);
  }

  #arm(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(
      () => {
        void this.sweep();
      },
      Math.max(1000, Math.min(this.init.idleMs, 60_000)),
    );
    this.#timer.unref();
  }

  #touch(session: McpSession): void {
    session.touchedAt = this.#now();
    void this.init.records?.touched(session.hash, session.tenant, {
      level: session.level,
      subscriptions: session.subscriptions,
    });
  }

  async #make(
    id: string,
    principal: Principal,
    make: (hooks: SessionHooks) => SessionServer,
    revived: boolean,
  ): Promise<McpSession> {
    const transport = new SessionTransport(id);
    const now = this.#now();
    const holder: { session?: McpSession } = {};
    const hooks: SessionHooks = {
      levelChanged: (level) => {
        const session = holder.session;
        if (session === undefined || session.level === level) return;
        session.level = level;
        this.#touch(session);
      },
      subscriptionsChanged: (uris) => {
        const session = holder.session;
        if (session === undefined) return;
        session.subscriptions = uris;
        if (!session.reviving) this.#touch(session);
      },
      callStarted: (requestId, call) => {
        const session = holder.session;
        const key = transport.sinkOf(requestId)?.key;
        if (session === undefined || key === undefined || this.init.records === undefined) return false;
        this.init.records.call(
          {
            hash: session.hash,
            stream: key,
            ...(session.tenant === undefined ? {} : { tenant: session.tenant }),
          },
          { id: requestId, ...call },
        );
        return true;
      },
    };
    const server = make(hooks);
    await server.connect(transport);
    const session: McpSession = {
      id,
      hash: sessionHash(id),
      owner: ownerKey(principal),
      tenant: principal.tenantId,
      server,
      transport,
      replay: new SessionReplay(),
      lastUsed: now,
      // a revived session tells the log at its first use that it lives again
      touchedAt: revived ? 0 : now,
      level: undefined,
      subscriptions: [],
      revived,
      reviving: revived,
    };
    holder.session = session;
    this.#sessions.set(id, session);
    // keep the SDK's own close handling (it ends the server's requests and calls server.onclose)
    const protocolClose = transport.onclose;
    transport.onclose = () => {
      this.#sessions.delete(id);
      protocolClose?.();
    };
    this.#arm();
    return session;
  }

  async #revive(
    id: string,
    principal: Principal,
    make: (hooks: SessionHooks) => SessionServer,
  ): Promise<McpSession | undefined> {
    const records = this.init.records;
    if (records === undefined) return undefined;
    const hash = sessionHash(id);
    const stored = await records.find(hash);
    if (stored === undefined || stored.ended) return undefined;
    if (stored.principal !== principal.id || (stored.tenant ?? '') !== (principal.tenantId ?? ''))
      return undefined;
    if (this.#now() - stored.lastUsed > this.init.idleMs + this.#touchMs) {
      void records.ended(hash, stored.tenant, 'idle');
      return undefined;
    }
    if (this.#sessions.has(id)) return this.#sessions.get(id);
    const session = await this.#make(id, principal, make, true);
    session.seenSeq = stored.lastSeq;
    // the SDK's own initialize: client capabilities, client info and the protocol version
    await replayed(session.transport, {
      jsonrpc: '2.0',
      id: REVIVAL_ID,
      method: 'initialize',
      params: stored.initialize,
    });
    session.transport.receive({ jsonrpc: '2.0', method: 'notifications/initialized' }, undefined);
    if (stored.level !== undefined) {
      session.level = stored.level;
      await replayed(session.transport, {
        jsonrpc: '2.0',
        id: REVIVAL_ID,
        method: 'logging/setLevel',
        params: { level: stored.level },
      });
    }
    // subscriptions again (a resource gone since is not subscribed: the answer is discarded)
    for (const uri of stored.subscriptions) {
      await replayed(session.transport, {
        jsonrpc: '2.0',
        id: REVIVAL_ID,
        method: 'resources/subscribe',
        params: { uri },
      });
    }
    session.reviving = false;
    return session;
  }
}
