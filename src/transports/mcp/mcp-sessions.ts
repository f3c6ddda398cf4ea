/**
 * The open MCP sessions of a node (issue 13 item 1, docs/decisions/mcp.md MCP-4): each has an
 * unguessable id (32 random bytes, base64url), the credential that opened it (principal id and
 * tenant), its SDK server and transport, and the time it was last used. A session idle longer
 * than the idle limit ends; a sweep timer (unref'd) finds them and is cleared on close.
 */
import { randomBytes } from 'node:crypto';
import type { Principal } from '../../runtime/index.js';
import type { SessionServer } from './mcp-server.js';
import { SessionTransport } from './session-transport.js';
import { SessionReplay } from './sse-replay.js';

/** One open session. */
export interface McpSession {
  readonly id: string;
  /** Who opened it: `principal id` + `\n` + `tenant` ({@link ownerKey}). */
  readonly owner: string;
  readonly server: SessionServer;
  readonly transport: SessionTransport;
  /** Its SSE streams and the events kept for `Last-Event-ID` (MCP-15). */
  readonly replay: SessionReplay;
  /** Last use, Unix ms. */
  lastUsed: number;
}

/** The owner key of a principal: its id and its tenant. */
export function ownerKey(principal: Principal): string {
  return `${principal.id}\n${principal.tenantId ?? ''}`;
}

/** A new session id: 32 bytes of crypto randomness, base64url (visible ASCII, as the spec asks). */
export function newSessionId(): string {
  return randomBytes(32).toString('base64url');
}

/** Options of {@link McpSessions}. */
export interface McpSessionsInit {
  /** Idle time after which a session ends, ms. */
  readonly idleMs: number;
  /** The clock, Unix ms. @default Date.now */
  readonly now?: () => number;
}

/** The session table. */
export class McpSessions {
  readonly #sessions = new Map<string, McpSession>();
  readonly #now: () => number;
  #timer: NodeJS.Timeout | undefined;

  constructor(readonly init: McpSessionsInit) {
    this.#now = init.now ?? Date.now;
  }

  /** Opens a session owned by `principal` with the server `make` builds for its transport. */
  async open(principal: Principal, make: () => SessionServer): Promise<McpSession> {
    const id = newSessionId();
    const transport = new SessionTransport(id);
    const server = make();
    await server.connect(transport);
    const session: McpSession = {
      id,
      owner: ownerKey(principal),
      server,
      transport,
      replay: new SessionReplay(),
      lastUsed: this.#now(),
    };
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

  /** The session `id` when `principal` owns it (touched), else `undefined`. */
  use(id: string, principal: Principal): McpSession | undefined {
    const session = this.#sessions.get(id);
    if (session === undefined || session.owner !== ownerKey(principal)) return undefined;
    session.lastUsed = this.#now();
    return session;
  }

  /** Every open session. */
  all(): McpSession[] {
    return [...this.#sessions.values()];
  }

  /** Ends session `id`. */
  async end(id: string): Promise<void> {
    const session = this.#sessions.get(id);
    this.#sessions.delete(id);
    await session?.server.close();
  }

  /** Ends the sessions idle past the limit. */
  async sweep(): Promise<void> {
    const limit = this.#now() - this.init.idleMs;
    for (const session of this.all()) if (session.lastUsed <= limit) await this.end(session.id);
  }

  /** Ends every session and the sweep timer. */
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
}
