/**
 * What every HTTP-face route shares: the injected components, the resolved options, and the
 * per-request state the hooks leave behind (the authenticated principal, the parsed body).
 */
import type { FastifyRequest } from 'fastify';
import { PlexusError } from '../../core/errors.js';
import type { Principal } from '../../runtime/context.js';
import type { Logger } from '../../core/logger.js';
import { runtimePrincipal, silentLogger, type FaceComponents } from '../face-components.js';
import type { Principal as AuthPrincipal } from '../../security/auth/principal.js';
import { authenticateHeaders } from '../ucan-credential.js';

/** Options of the HTTP faces (see `registerHttpFaces`). */
export interface HttpFacesInit {
  /**
   * The largest request body accepted, in bytes; a larger one is answered 413 with ESRP
   * `INVALID_INPUT_SIZE` (or the face's own form).
   * @default 1048576 (1 MiB)
   */
  readonly bodyLimitBytes?: number;
  /**
   * How often an idle SSE stream gets a `: heartbeat` comment, in ms.
   * @default 15000
   */
  readonly heartbeatMs?: number;
  /**
   * Also install the root 404 handler and the root error handler (JSON in the face's form
   * for `/v1/*`, `/emergence`, and `{error: {code, message}}` elsewhere). Turn it off when
   * the node sets its own root handlers (fastify allows one 404 handler per prefix).
   * @default true
   */
  readonly fallbackHandlers?: boolean;
  /**
   * An extra readiness check for `GET /readyz` (e.g. false while the node drains); the
   * default checks already require the event log open and the runtime started.
   */
  readonly ready?: () => boolean | Promise<boolean>;
  /**
   * Why the node cannot serve now (e.g. its event log cannot be written), or `undefined`:
   * a reason makes `GET /readyz` answer 503 with it.
   */
  readonly unreadyReason?: () => string | undefined;
  /**
   * How long an agent registered by an Emergence HELLO without `_x_endpoint` stays registered
   * after its last HELLO, ms (issue 11 item 4).
   * @default 300000
   */
  readonly helloTtlMs?: number;
  /** The clock of HELLO expiry, Unix ms (tests inject one). @default Date.now */
  readonly now?: () => number;
}

/** {@link HttpFacesInit} with the defaults filled in. */
export interface HttpFacesSettings {
  readonly bodyLimitBytes: number;
  readonly heartbeatMs: number;
  readonly fallbackHandlers: boolean;
  readonly ready: (() => boolean | Promise<boolean>) | undefined;
  readonly unreadyReason: (() => string | undefined) | undefined;
}

/** The default body limit: 1 MiB. */
export const DEFAULT_BODY_LIMIT_BYTES = 1_048_576;

/** The default SSE heartbeat period: 15 s. */
export const DEFAULT_HEARTBEAT_MS = 15_000;

/**
 * Fills in the defaults of {@link HttpFacesInit}.
 *
 * @throws PlexusError `INVALID_PARAMS` when `bodyLimitBytes` or `heartbeatMs` is not a whole
 *   number ≥ 1.
 */
export function httpFacesSettings(init: HttpFacesInit = {}): HttpFacesSettings {
  const bodyLimitBytes = init.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  const heartbeatMs = init.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  for (const [name, value] of [
    ['bodyLimitBytes', bodyLimitBytes],
    ['heartbeatMs', heartbeatMs],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new PlexusError('INVALID_PARAMS', `${name} must be a whole number ≥ 1, got ${String(value)}`);
    }
  }
  return {
    bodyLimitBytes,
    heartbeatMs,
    fallbackHandlers: init.fallbackHandlers ?? true,
    ready: init.ready,
    unreadyReason: init.unreadyReason,
  };
}

/** The abort reason of streams ended because the server is closing. */
export const SERVER_CLOSING = 'the server is closing';

/** Shared state of the HTTP-face routes. */
export class FaceScope {
  /** Where the faces log. */
  readonly logger: Logger;
  readonly #principals = new WeakMap<FastifyRequest, Principal>();
  readonly #bodies = new WeakMap<FastifyRequest, unknown>();
  readonly #capabilities = new WeakMap<FastifyRequest, string>();
  readonly #streams = new Set<AbortController>();

  constructor(
    readonly components: FaceComponents,
    readonly settings: HttpFacesSettings,
  ) {
    this.logger = components.logger ?? silentLogger;
  }

  /** Records the authenticated caller of `request`. */
  authenticated(request: FastifyRequest, principal: AuthPrincipal): void {
    this.#principals.set(request, runtimePrincipal(principal));
  }

  /**
   * Authenticates `request` from its headers (see `ucan-credential.ts`): `Authorization`
   * (a node JWT, an API key, or a UCAN with its proofs in `ucans`) and `Plexus-Capability`;
   * records the principal and the capability container the request carries.
   * @throws PlexusError `UNAUTHORIZED` naming what is wrong (for a UCAN, the broken link).
   */
  async authenticate(request: FastifyRequest): Promise<void> {
    const credential = await authenticateHeaders(this.components, request.headers);
    this.authenticated(request, credential.principal);
    if (credential.capability !== undefined) this.#capabilities.set(request, credential.capability);
  }

  /** The capability container `request` carried in its headers, if any. */
  capabilityOf(request: FastifyRequest): string | undefined {
    return this.#capabilities.get(request);
  }

  /** The runtime principal of `request`, when it was authenticated. */
  principalOf(request: FastifyRequest): Principal | undefined {
    return this.#principals.get(request);
  }

  /** Records the parsed body of `request` (error answers take ids from it). */
  parsed(request: FastifyRequest, value: unknown): void {
    this.#bodies.set(request, value);
  }

  /** The parsed body of `request`, when it was parsed. */
  bodyOf(request: FastifyRequest): unknown {
    return this.#bodies.get(request);
  }

  /** Tracks an open stream (SSE) so {@link FaceScope.closeStreams} can end it. */
  openStream(): AbortController {
    const controller = new AbortController();
    this.#streams.add(controller);
    controller.signal.addEventListener('abort', () => this.#streams.delete(controller), { once: true });
    return controller;
  }

  /** Ends every open stream (the server is closing); their signals abort with {@link SERVER_CLOSING}. */
  closeStreams(): void {
    for (const controller of [...this.#streams]) controller.abort(SERVER_CLOSING);
  }

  /** Transport metadata for the invocation context (audit). */
  transportOf(request: FastifyRequest): Readonly<Record<string, string>> {
    const out: Record<string, string> = { remoteAddress: request.ip };
    const agent = request.headers['user-agent'];
    if (typeof agent === 'string' && agent !== '') out['userAgent'] = agent.slice(0, 200);
    return out;
  }
}

/** The body of `request` as text (the HTTP faces read every body as text); `''` when none. */
export function bodyText(request: FastifyRequest): string {
  return typeof request.body === 'string' ? request.body : '';
}
