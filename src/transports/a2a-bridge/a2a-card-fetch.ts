/**
 * Fetching a bridged A2A agent's card (issue 14 item 4; docs/decisions/a2a.md A2A-13, A2A-21):
 * `GET <url>/.well-known/agent-card.json` with the entry's headers, revalidated with
 * `If-None-Match` when an `ETag` is known (a 304 keeps the card), its signature checked, its
 * `Cache-Control` read for when to fetch it again. For an agent a caller chose
 * (`bridge.announceA2AAgent`, A2A-19) the request follows no redirect and every interface the
 * card sends calls to must pass the node's outbound URL policy too.
 */
import type { FetchFn } from '../outbound-trace.js';
import { AgentCard as SdkAgentCardCodec, type AgentCard as SdkAgentCard } from '@a2a-js/sdk';
import { PlexusError } from '../../core/errors.js';
import { isJsonObject } from '../../core/json.js';
import { checkCardSignatures } from '../a2a/card-signature.js';
import { checkOutboundUrl, isLoopbackHost, type OutboundUrlPolicy } from '../outbound-url.js';
import { entryHeaders, type A2aAnnouncement } from './a2a-agent-entry.js';

/** The card path under an agent's base URL. */
export const CARD_PATH = '/.well-known/agent-card.json';
/** The interface bindings the bridge's client speaks (the ones whose URLs it may call). */
const SPOKEN = new Set(['JSONRPC', 'HTTP+JSON']);

/** A card as fetched. */
export interface FetchedCard {
  /** The card's JSON (what the signature covers). */
  readonly json: Record<string, unknown>;
  readonly card: SdkAgentCard;
  /** Its `ETag`, for the next revalidation. */
  readonly etag?: string;
  /** How long it may be used before it is fetched again (`Cache-Control: max-age`), ms. */
  readonly maxAgeMs?: number;
}

/** The answer of a fetch: a (new) card, or `unchanged` (304 to `If-None-Match`). */
export type CardAnswer =
  | { readonly changed: true; readonly fetched: FetchedCard }
  | { readonly changed: false; readonly maxAgeMs?: number };

/** Options of {@link fetchA2aCard}. */
export interface CardFetchOptions {
  /** The `ETag` of the card held: sent as `If-None-Match`. */
  readonly etag?: string;
  readonly signal?: AbortSignal;
  /**
   * For an agent a caller chose: no redirects, and the card's JSON-RPC and HTTP+JSON interface
   * URLs must pass this policy (and be https unless loopback). Absent = an operator's entry.
   */
  readonly policy?: OutboundUrlPolicy;
  /** The `fetch` to use (the bridge's traced one, OBS-48). @default the global fetch */
  readonly fetch?: FetchFn;
}

/**
 * How long a response may be used, from its `Cache-Control`: `max-age` in ms; `no-cache`,
 * `no-store` (or a `max-age` that is no whole number) 0; `undefined` when it says nothing.
 */
export function maxAgeOf(cacheControl: string | null): number | undefined {
  if (cacheControl === null) return undefined;
  const directives = cacheControl
    .toLowerCase()
    .split(',')
    .map((d) => d.trim());
  if (directives.includes('no-store') || directives.includes('no-cache')) return 0;
  const maxAge = directives.find((d) => d.startsWith('max-age='));
  if (maxAge === undefined) return undefined;
  const seconds = maxAge.slice('max-age='.length).replace(/^"|"$/g, '');
  return /^\d{1,10}$/.test(seconds) ? Number(seconds) * 1000 : 0;
}

/**
 * Checks an agent URL a caller chose against `policy`: http(s), no credentials, an allowed host,
 * and https unless the host is loopback (its credentials would travel in clear).
 *
 * @throws PlexusError `INVALID_PARAMS` for a URL that is not one; `FORBIDDEN` for a host the
 *   policy refuses, or plain http to a host that is not loopback.
 */
export function checkAgentUrl(text: string, policy: OutboundUrlPolicy, pointer: string, what: string): URL {
  const checked = checkOutboundUrl(text, policy, {
    what,
    requests: 'A2A agents announced at run time',
    configKey: 'a2a.announce.allowHosts',
  });
  if ('problem' in checked) {
    if (checked.kind === 'malformed')
      throw new PlexusError('INVALID_PARAMS', checked.problem, { details: { pointer } });
    throw new PlexusError('FORBIDDEN', `${what}: ${checked.problem}`, { details: { pointer } });
  }
  if (checked.url.protocol === 'http:' && !isLoopbackHost(checked.url.hostname)) {
    throw new PlexusError(
      'FORBIDDEN',
      `${what} must be https (plain http only to loopback): the agent's credentials and data would travel in clear`,
      { details: { pointer } },
    );
  }
  return checked.url;
}

function unavailable(who: string, base: string, why: string): PlexusError {
  return new PlexusError(
    'UNAVAILABLE',
    `the card of A2A agent ${who} (${base}) could not be fetched: ${why}`,
    {
      retryable: true,
      details: { url: base },
    },
  );
}

/**
 * Fetches the card of `entry`'s agent.
 *
 * @throws PlexusError `UNAVAILABLE` when the card cannot be fetched or read; `FORBIDDEN` when
 *   its signature does not verify and the entry does not say `unsigned: allow`, or (with a
 *   policy) when it sends calls to a URL the policy refuses.
 */
export async function fetchA2aCard(
  entry: A2aAnnouncement,
  options: CardFetchOptions = {},
): Promise<CardAnswer> {
  const base = entry.url.replace(/\/+$/, '');
  const who = entry.name ?? base;
  const headers: Record<string, string> = { accept: 'application/json', ...entryHeaders(entry) };
  if (options.etag !== undefined) headers['if-none-match'] = options.etag;
  let res: Response;
  try {
    res = await (options.fetch ?? fetch)(`${base}${CARD_PATH}`, {
      headers,
      ...(options.policy === undefined ? {} : { redirect: 'error' as const }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  } catch (error) {
    throw unavailable(
      who,
      base,
      error instanceof Error
        ? error.cause instanceof Error
          ? `${error.message} (${error.cause.message})`
          : error.message
        : String(error),
    );
  }
  const maxAgeMs = maxAgeOf(res.headers.get('cache-control'));
  if (res.status === 304 && options.etag !== undefined) {
    await res.body?.cancel();
    return { changed: false, ...(maxAgeMs === undefined ? {} : { maxAgeMs }) };
  }
  if (!res.ok) {
    await res.body?.cancel();
    throw unavailable(who, base, `HTTP ${res.status}`);
  }
  let json: unknown;
  try {
    json = await res.json();
  } catch (error) {
    throw unavailable(who, base, `the answer is not JSON (${String(error)})`);
  }
  if (!isJsonObject(json ?? null)) throw unavailable(who, base, 'the answer is not a JSON object');
  const object = json as Record<string, unknown>;
  if (checkCardSignatures(object) === 'invalid' && entry.unsigned !== 'allow') {
    throw new PlexusError(
      'FORBIDDEN',
      `the card of A2A agent ${who} (${base}) has a signature that does not verify; set unsigned: allow to accept it anyway`,
      { details: { url: base } },
    );
  }
  let card: SdkAgentCard;
  try {
    card = SdkAgentCardCodec.fromJSON(object);
  } catch (error) {
    throw unavailable(who, base, `the card cannot be read (${String(error)})`);
  }
  if (options.policy !== undefined) {
    for (const [i, face] of card.supportedInterfaces.entries()) {
      if (SPOKEN.has(face.protocolBinding))
        checkAgentUrl(
          face.url,
          options.policy,
          `/supportedInterfaces/${i}/url`,
          `the interface url of A2A agent ${who}'s card (${face.url})`,
        );
    }
  }
  const etag = res.headers.get('etag') ?? undefined;
  return {
    changed: true,
    fetched: {
      json: object,
      card,
      ...(etag === undefined ? {} : { etag }),
      ...(maxAgeMs === undefined ? {} : { maxAgeMs }),
    },
  };
}
