/**
 * The HTTP rules of the MCP Streamable HTTP transport the face applies before any message runs
 * (issue 13 item 1, docs/decisions/mcp.md MCP-1, MCP-5): Origin validation, the protocol
 * version header, what the client accepts, and the JSON-RPC error body of a refusal.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PlexusError } from '../../core/errors.js';
import { HTTP_STATUS } from '../http/http-status.js';
import { mcpErrorCode } from './mcp-errors.js';
import { MCP_PROTOCOL_VERSIONS, MCP_VERSION_HEADER } from './mcp-protocol.js';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** Most recent `Host` values and their host names (a client sends the same one every time). */
const hostnames = new Map<string, string | undefined>();
const HOSTNAMES_KEPT = 64;

function parseHostname(host: string): string | undefined {
  try {
    return new URL(`http://${host}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/** The host name of a `Host` value as the URL parser reads it (remembered: MCP-45). */
function hostnameOf(host: string | undefined): string | undefined {
  if (host === undefined || host === '') return undefined;
  if (hostnames.has(host)) return hostnames.get(host);
  const name = parseHostname(host);
  if (hostnames.size >= HOSTNAMES_KEPT) hostnames.clear();
  hostnames.set(host, name);
  return name;
}

/**
 * True when `request` may be served from its `Origin`: no Origin (not a browser), or an Origin
 * whose host is a loopback name or the host the request was sent to (DNS rebinding defence).
 */
export function originAllowed(request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  let host: string;
  try {
    host = new URL(origin).hostname.toLowerCase();
  } catch {
    return false;
  }
  return LOOPBACK.has(host) || host === hostnameOf(request.headers.host);
}

const LOOPBACK_ADDRESS = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3})$/;

/**
 * MCP-43 (DNS rebinding): false when an anonymous request (a node with auth off) arrives on a
 * loopback address naming a Host that is not a loopback name — a browser sent there by a
 * rebound DNS name. Authenticated requests and non-loopback listeners are not affected, so a
 * reverse proxy in front of an authenticating node keeps working.
 */
export function hostAllowed(request: FastifyRequest, principal: { readonly kind: string }): boolean {
  if (principal.kind !== 'anonymous') return true;
  const local = request.socket.localAddress ?? '';
  if (!LOOPBACK_ADDRESS.test(local)) return true;
  const host = hostnameOf(request.headers.host);
  return host !== undefined && (LOOPBACK.has(host) || LOOPBACK_ADDRESS.test(host));
}

/** The request's `MCP-Protocol-Version` when it is one the face speaks, `undefined` when absent, `false` when not. */
export function protocolVersionOf(request: FastifyRequest): string | undefined | false {
  const header = request.headers[MCP_VERSION_HEADER];
  if (header === undefined) return undefined;
  const value = Array.isArray(header) ? header.join(',') : header;
  return MCP_PROTOCOL_VERSIONS.includes(value.trim()) ? value.trim() : false;
}

/** What the client's `Accept` allows. */
export interface Accepts {
  readonly json: boolean;
  readonly sse: boolean;
}

/** Reads `Accept` (`*` forms count for JSON only: a stream must be asked for by name). */
export function acceptsOf(request: FastifyRequest): Accepts {
  const header = (request.headers.accept ?? '').toLowerCase();
  const types = header.split(',').map((t) => (t.split(';')[0] ?? '').trim());
  return {
    json:
      header === '' || types.some((t) => t === 'application/json' || t === 'application/*' || t === '*/*'),
    sse: types.includes('text/event-stream'),
  };
}

/** A JSON-RPC error message with no id (the request could not be read or was refused). */
export function jsonRpcError(code: number, message: string, data?: Record<string, unknown>): object {
  return { jsonrpc: '2.0', id: null, error: { code, message, ...(data === undefined ? {} : { data }) } };
}

/** Sends a refusal: `status` with the JSON-RPC error of `error` (its Plexus code in `data`). */
export function sendRefusal(
  reply: FastifyReply,
  error: PlexusError,
  status: number = HTTP_STATUS[error.code],
): FastifyReply {
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send(jsonRpcError(mcpErrorCode(error.code), error.message, { code: error.code }));
}
