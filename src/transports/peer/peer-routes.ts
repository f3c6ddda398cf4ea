/**
 * The receiving side of node-to-node calls: `POST /v1/peer/invoke`. The body is a D3
 * signed envelope whose payload `d` is a core request Envelope. The signature is the
 * credential: it is verified for `plexus/rpc/<verb>` (shape, domain, signer, time window,
 * replay), the signer must be a trusted peer node, and the request then runs through the
 * runtime like any other, its answer envelope sent back as JSON.
 *
 * Who is admitted (issue 11 item 1, docs/decisions/peer-trust.md):
 *
 * - a signer in the trust set (`auth.trustedPeers` and the `did` of each configured peer)
 *   relays for the tenant its envelope names — unless it also presents a bearer credential
 *   bound to a tenant, which then binds the call's tenant like on any other face;
 * - any other signer only on a node whose faces admit anonymous callers (dev mode, no trust
 *   set configured): it can do no more than an anonymous caller of the other faces;
 * - everything else is refused 403 `FORBIDDEN`, whatever bearer credential it carries: a
 *   signature from a key this node does not know proves nothing about a tenant.
 *
 * Statuses: 200 with the answer envelope (kind `response` or `error`) whenever the runtime
 * answered; 429 / 502 / 503 / 504 with the answer envelope when the runtime refused the
 * request before any job existed for a retryable reason (the node is stopping, rate
 * limited), so the sender may retry (D4); otherwise the status of the Plexus code with an
 * ESRP failed response (`error.details.plexus_code` names the Plexus code: 400 malformed,
 * 401 signature refused or replayed, 403 untrusted signer, 413 too large).
 */
import { withServedTrace } from '../trace-headers.js';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Envelope } from '../../core/envelope.js';
import { PlexusError, isPlexusErrorCode, toPlexusError } from '../../core/errors.js';
import { isJsonObject } from '../../core/json.js';
import { decodeJsonText } from '../../core/bounded-json.js';
import type { Invocation } from '../../runtime/index.js';
import { assertSignedEnvelopeShape, rpcDomain } from '../../security/index.js';
import { silentLogger, type FaceComponents } from '../face-components.js';
import { sendPeerRefusal } from './peer-refusal.js';
import { PEER_PRINCIPAL_KIND, admitPeerSigner, untrustedSigner } from './peer-admission.js';
import { PEER_INVOKE_PATH, PEER_TIMEOUT_HEADER, trustSet, tryPeerDid } from './peer-config.js';
import { RETRYABLE_STATUSES } from './peer-wire.js';
import { HTTP_STATUS } from '../http/http-status.js';
import { logEnvelope } from '../../observability/logging/envelope-log.js';

/** Options of {@link registerPeerRoutes}. */
export interface PeerRoutesInit {
  /**
   * The peer nodes whose signed calls are admitted (did:key or PeerId). When set, any other
   * signer is refused with 403 `FORBIDDEN` (an empty list admits nobody). When absent, any
   * validly signed call is admitted only on a node that admits anonymous callers (dev mode,
   * `components.auth`); a node that requires auth refuses every signer with 403.
   * @default undefined
   */
  readonly trustedPeers?: readonly string[];
  /** The largest accepted body, bytes. @default 1048576 */
  readonly bodyLimit?: number;
}

export { PEER_PRINCIPAL_KIND };

/** The face name in the invocation context of forwarded calls. */
export const PEER_FACE = 'peer';

declare module '../../runtime/context.js' {
  interface FaceNames {
    /** Calls forwarded by a peer node. */
    readonly peer: true;
  }
}

const DEFAULT_BODY_LIMIT = 1_048_576;

/**
 * Registers `POST /v1/peer/invoke` on `app`, in its own encapsulated scope (its own body
 * parser and error handler; bearer hooks of other faces must not cover this path — the
 * signature is its credential).
 *
 * @throws PlexusError `INVALID_PARAMS` when a trusted peer is neither a did:key nor a
 *   PeerId; fastify's errors when the route is already registered.
 * @example
 * await registerPeerRoutes(app, components, { trustedPeers: ['did:key:z6Mk…'] });
 */
export async function registerPeerRoutes(
  app: FastifyInstance,
  components: FaceComponents,
  init: PeerRoutesInit = {},
): Promise<void> {
  const trusted = init.trustedPeers === undefined ? undefined : trustSet(init.trustedPeers);
  const bodyLimit = init.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const logger = components.logger ?? silentLogger;

  await app.register((scope, _options, done) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit }, (_request, body, parsed) => {
      parsed(null, body);
    });
    scope.setErrorHandler((error: FastifyError, request, reply) => {
      const plexus = fastifyErrorToPlexus(error);
      if (plexus.code === 'INTERNAL') {
        logger.error({ err: error, url: request.url }, 'peer invoke failed');
      }
      return sendPeerRefusal(reply, plexus);
    });
    scope.post(PEER_INVOKE_PATH, async (request, reply) => {
      const outcome = await handleInvoke(request, reply, components, trusted);
      return reply
        .code(statusOf(outcome))
        .header('content-type', 'application/json; charset=utf-8')
        .send(JSON.stringify(outcome.envelope));
    });
    done();
  });
}

async function handleInvoke(
  request: FastifyRequest,
  reply: FastifyReply,
  components: FaceComponents,
  trusted: ReadonlySet<string> | undefined,
): Promise<Invocation> {
  const text = typeof request.body === 'string' ? request.body : '';
  // Bounded: too deep or not recordable is refused (400) before any signature work.
  const body = decodeJsonText(text, { what: 'the peer request body' });
  const signed = assertSignedEnvelopeShape(body);
  // Cheap trust check on the claimed signer before any signature work.
  if (trusted !== undefined) {
    const claimed = tryPeerDid(signed.from);
    if (claimed !== undefined && !trusted.has(claimed)) throw untrustedSigner(signed.from);
  }
  const d = signed.d;
  if (!isJsonObject(d) || typeof d['verb'] !== 'string' || d['verb'] === '') {
    throw new PlexusError(
      'MALFORMED_ENVELOPE',
      'signed envelope field "d" must be a core request Envelope (an object with a verb)',
      { details: { field: 'd' } },
    );
  }
  const { signer } = components.verifier.verify(body, rpcDomain(d['verb']));
  const logger = components.logger ?? silentLogger;
  const received = withServedTrace(d as unknown as Envelope, request.raw); // W3C traceparent header
  logEnvelope(logger, 'received', received, signer.did);
  const principal = await admitPeerSigner(request.headers.authorization, signer.did, components, trusted);
  const timeoutMs = timeoutOf(request.headers[PEER_TIMEOUT_HEADER]);

  const controller = new AbortController();
  const onClose = (): void => {
    if (!reply.raw.writableFinished) controller.abort();
  };
  reply.raw.once('close', onClose);
  try {
    const invocation = await components.runtime.invoke(
      received,
      {
        face: PEER_FACE,
        principal,
        transport: { peer: signer.did, remoteAddress: request.ip },
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
      },
      { signal: controller.signal },
    );
    logEnvelope(logger, 'sent', invocation.envelope, signer.did, { status: statusOf(invocation) });
    return invocation;
  } finally {
    reply.raw.off('close', onClose);
  }
}

/** 200, or a retryable status when the runtime refused before a job existed. */
function statusOf(invocation: Invocation): number {
  const { envelope } = invocation;
  if (invocation.job !== undefined || envelope.kind !== 'error' || !isJsonObject(envelope.data)) {
    return 200;
  }
  const { code, retryable } = envelope.data;
  if (retryable !== true || !isPlexusErrorCode(code)) return 200;
  const status = HTTP_STATUS[code];
  return RETRYABLE_STATUSES.has(status) ? status : 200;
}

function timeoutOf(header: string | string[] | undefined): number | undefined {
  if (header === undefined) return undefined;
  const text = Array.isArray(header) ? header[0] : header;
  const value = text !== undefined && /^[1-9][0-9]{0,15}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value)) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `header ${PEER_TIMEOUT_HEADER} must be a whole number of ms ≥ 1, got ${JSON.stringify(header)}`,
      { details: { header: PEER_TIMEOUT_HEADER } },
    );
  }
  return value;
}

function fastifyErrorToPlexus(error: FastifyError): PlexusError {
  if (error instanceof PlexusError) return error;
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || error.statusCode === 413) {
    return new PlexusError('INPUT_TOO_LARGE', 'the peer request body is larger than this node accepts', {
      cause: error,
    });
  }
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return new PlexusError('INVALID_REQUEST', error.message, { cause: error });
  }
  return toPlexusError(error);
}
