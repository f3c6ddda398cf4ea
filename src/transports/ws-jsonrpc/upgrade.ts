/**
 * The HTTP side of the face's WebSocket upgrade: which requests are ours, where the bearer
 * credential is (D14), and how an upgrade is refused with a proper HTTP answer.
 */
import type { IncomingMessage } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorData } from '../../core/errors.js';
import {
  WS_BEARER_PROTOCOL_PREFIX,
  WS_JSONRPC_PATHS,
  WS_JSONRPC_SUBPROTOCOL,
  WS_TOKEN_QUERY_PARAMS,
} from './protocol.js';
import { CAPABILITY_HEADER, UCAN_HEADER_ALIAS, UCANS_HEADER, headerText } from '../ucan-credential.js';

/** Where an upgrade request carried its credential. */
export type CredentialSource = 'header' | 'protocol' | 'query' | 'none';

/** The credential of an upgrade request, as an `Authorization` header value. */
export interface UpgradeCredential {
  /** `Bearer <token>` (or the header as sent); `undefined` when there is none. */
  readonly authorization: string | undefined;
  readonly source: CredentialSource;
  /**
   * The proofs of a bearer UCAN: the `ucans` (or `ucan`) header, else the `ucans` query
   * parameter; comma-separated JWTs.
   */
  readonly proofs?: string;
  /** A capability container beside another credential: `Plexus-Capability`, else `?capability=`. */
  readonly capability?: string;
}

/** The query parameter carrying a bearer UCAN's proofs (clients that cannot set headers). */
export const WS_UCANS_QUERY_PARAM = UCANS_HEADER;
/** The query parameter carrying a capability container (clients that cannot set headers). */
export const WS_CAPABILITY_QUERY_PARAM = 'capability';

function queryText(url: URL, name: string): string | undefined {
  const value = url.searchParams.get(name);
  return value === null || value.trim() === '' ? undefined : value.trim();
}

/** The capability headers (or query parameters) of an upgrade request. */
function capabilityParts(request: IncomingMessage, url: URL): { proofs?: string; capability?: string } {
  const proofs =
    headerText(request.headers[UCANS_HEADER]) ??
    headerText(request.headers[UCAN_HEADER_ALIAS]) ??
    queryText(url, WS_UCANS_QUERY_PARAM);
  const capability =
    headerText(request.headers[CAPABILITY_HEADER]) ?? queryText(url, WS_CAPABILITY_QUERY_PARAM);
  return {
    ...(proofs === undefined ? {} : { proofs }),
    ...(capability === undefined ? {} : { capability }),
  };
}

/** The path and query of an upgrade request (`/` when the target cannot be read). */
export function upgradeUrl(request: IncomingMessage): URL {
  try {
    return new URL(request.url ?? '/', 'http://upgrade.invalid');
  } catch {
    return new URL('/', 'http://upgrade.invalid');
  }
}

/** True when the face answers upgrades on this URL's path. */
export function isFacePath(url: URL): boolean {
  return WS_JSONRPC_PATHS.includes(url.pathname);
}

/** The subprotocols a client offered, in its order. */
export function offeredProtocols(request: IncomingMessage): string[] {
  const header = request.headers['sec-websocket-protocol'];
  if (typeof header !== 'string') return [];
  return header
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
}

/**
 * Finds the credential of an upgrade request, first match wins: the `Authorization` header;
 * a `plexus.bearer.<token>` subprotocol (browsers cannot set headers); the `access_token` or
 * `token` query parameter. A bearer UCAN's proofs and a separate capability container come
 * beside it (see `ucan-credential.ts`).
 */
export function upgradeCredential(request: IncomingMessage, url: URL): UpgradeCredential {
  const parts = capabilityParts(request, url);
  const header = request.headers.authorization;
  if (typeof header === 'string' && header.trim() !== '') {
    return { authorization: header, source: 'header', ...parts };
  }
  const carried = offeredProtocols(request).find((p) => p.startsWith(WS_BEARER_PROTOCOL_PREFIX));
  if (carried !== undefined) {
    return {
      authorization: `Bearer ${carried.slice(WS_BEARER_PROTOCOL_PREFIX.length)}`,
      source: 'protocol',
      ...parts,
    };
  }
  for (const name of WS_TOKEN_QUERY_PARAMS) {
    const value = url.searchParams.get(name);
    if (value !== null && value !== '')
      return { authorization: `Bearer ${value}`, source: 'query', ...parts };
  }
  return { authorization: undefined, source: 'none', ...parts };
}

/**
 * The subprotocol the server selects: `jsonrpc` when offered, else none (a credential
 * subprotocol is never selected, so the token is not echoed).
 */
export function selectProtocol(protocols: ReadonlySet<string>): string | false {
  return protocols.has(WS_JSONRPC_SUBPROTOCOL) ? WS_JSONRPC_SUBPROTOCOL : false;
}

/**
 * Refuses an upgrade: writes an `HTTP/1.1 <status>` answer with a JSON body (the ErrorData of
 * the refusal) and closes the socket.
 * @throws never.
 */
export function refuseUpgrade(
  socket: Duplex,
  status: number,
  error: ErrorData,
  headers: Readonly<Record<string, string>> = {},
): void {
  if (socket.destroyed) return;
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify({ error });
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    'Connection: close',
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value.replace(/[\r\n]/g, ' ')}`),
  ];
  socket.once('finish', () => socket.destroy());
  socket.once('error', () => socket.destroy());
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}
