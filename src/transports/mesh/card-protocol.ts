/**
 * `/plexus/card/1.0.0` (issue 15 item 4; docs/decisions/mesh.md MESH-22): a peer asks another
 * for its capability cards directly, after finding it in the DHT.
 *
 * One request, one answer, each a UTF-8 JSON document ended by closing the writing side:
 *
 * - request `{"verbs": ["weather.forecast.get"]}` — the cards offering any of these verbs
 *   (omitted or empty: every local card); at most {@link CARD_REQUEST_MAX_BYTES} bytes and
 *   {@link CARD_REQUEST_MAX_VERBS} verbs;
 * - answer: a D3 signed envelope, domain {@link CARD_DOMAIN}, `from` the answering PeerId,
 *   `d` = `{"cards": [...], "peer": {...}}` — its local cards only, and its peer card
 *   (reputation, geo, taskTypes, tools; MESH-43, MESH-50) as its capability gossip carries it
 *   (absent from older nodes) — at most {@link CARD_RESPONSE_MAX_BYTES};
 * - a bad request is answered `{"error": {"code", "message"}}` (`INPUT_TOO_LARGE`,
 *   `PARSE_ERROR`, `INVALID_PARAMS`) and the stream closed; the node never crashes on one.
 *
 * The asking side accepts an answer only when its signature checks, its domain is the card
 * domain and its signer is the peer it asked.
 */
import type { Connection, PeerId, Stream } from '@libp2p/interface';
import { PlexusError, toPlexusError } from '../../core/errors.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.js';
import { silentLogger, type Logger } from '../../core/logger.js';
import { stripVerbVersion, verbNameProblem } from '../../core/verb-name.js';
import type { Registry } from '../../runtime/index.js';
import { signEnvelope, type Ed25519KeyPair, type EnvelopeVerifier } from '../../security/index.js';

/** The protocol id. */
export const CARD_PROTOCOL = '/plexus/card/1.0.0';
/** The signing domain of card answers. */
export const CARD_DOMAIN = 'plexus/card';
/** The largest request, bytes. */
export const CARD_REQUEST_MAX_BYTES = 4096;
/** The most verbs one request may name. */
export const CARD_REQUEST_MAX_VERBS = 32;
/** The largest answer, bytes. */
export const CARD_RESPONSE_MAX_BYTES = 1024 * 1024;
/** How long the answering side waits for a whole request, ms. */
export const CARD_REQUEST_TIMEOUT_MS = 5000;

/** The streams side of a libp2p peer this protocol uses. */
export interface CardPeer {
  handle(
    protocol: string,
    handler: (stream: Stream, connection: Connection) => void | Promise<void>,
    options?: { maxInboundStreams?: number },
  ): Promise<void>;
  unhandle(protocol: string): Promise<void>;
  dialProtocol(peer: PeerId, protocol: string, options?: { signal?: AbortSignal }): Promise<Stream>;
}

/** Reads what the other side writes until it closes its writing side, up to `limit` bytes. */
async function readAll(
  stream: Stream,
  limit: number,
  signal: AbortSignal,
): Promise<Uint8Array | 'too-large'> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const stop = (): void => {
    stream.abort(new Error('the card exchange took too long'));
  };
  signal.addEventListener('abort', stop, { once: true });
  try {
    for await (const chunk of stream) {
      const bytes = chunk instanceof Uint8Array ? chunk : chunk.subarray();
      size += bytes.byteLength;
      if (size > limit) return 'too-large';
      chunks.push(bytes);
    }
  } finally {
    signal.removeEventListener('abort', stop);
  }
  if (signal.aborted) throw new PlexusError('TIMEOUT', 'the card exchange took too long');
  const all = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.byteLength;
  }
  return all;
}

const encode = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));

/** Sends `bytes` and closes the writing side. */
async function answer(stream: Stream, bytes: Uint8Array, signal: AbortSignal): Promise<void> {
  if (!stream.send(bytes)) await stream.onDrain({ signal });
  await stream.close({ signal });
}

/** The verbs of a request, or why it is refused. */
export function parseCardRequest(bytes: Uint8Array): readonly string[] | PlexusError {
  let value: unknown;
  try {
    value = bytes.byteLength === 0 ? {} : JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return new PlexusError('PARSE_ERROR', 'the card request is not UTF-8 JSON');
  }
  if (!isJsonObject(value)) {
    return new PlexusError('INVALID_PARAMS', 'the card request must be a JSON object {"verbs": [...]}');
  }
  const unknown = Object.keys(value).filter((k) => k !== 'verbs');
  if (unknown.length > 0) {
    return new PlexusError(
      'INVALID_PARAMS',
      `the card request has an unknown field ${JSON.stringify(unknown[0]?.slice(0, 40))}; only "verbs" is allowed`,
    );
  }
  const verbs = value['verbs'] ?? [];
  if (!Array.isArray(verbs) || verbs.length > CARD_REQUEST_MAX_VERBS) {
    return new PlexusError(
      'INVALID_PARAMS',
      `"verbs" must be a list of at most ${CARD_REQUEST_MAX_VERBS} verb names`,
    );
  }
  for (const verb of verbs) {
    const problem = verbNameProblem(verb);
    if (problem !== undefined) return new PlexusError('INVALID_PARAMS', `"verbs": ${problem}`);
  }
  return verbs as string[];
}

/** Options of {@link serveCards}. */
export interface ServeCardsInit {
  /** The node key (answers are signed with it; `from` is its PeerId). */
  readonly key: Ed25519KeyPair;
  /** The registry whose local cards are answered. */
  readonly registry: Pick<Registry, 'list'>;
  /** This node's peer card, sent with the cards (MESH-50). @default none */
  readonly peerCard?: () => JsonObject;
  /** @default silentLogger */
  readonly logger?: Logger;
}

/** The local cards offering one of `verbs` (every local card when none), without revisions. */
function localCards(registry: Pick<Registry, 'list'>, verbs: readonly string[]): JsonObject[] {
  const wanted = new Set(verbs.map(stripVerbVersion));
  return registry
    .list()
    .filter(
      (card) =>
        card.origin !== 'remote' &&
        (wanted.size === 0 || card.capabilities.some((c) => wanted.has(stripVerbVersion(c.verb)))),
    )
    .map((card) => {
      const plain: JsonObject = { ...(card as unknown as JsonObject) };
      delete plain['revision'];
      return plain;
    });
}

/**
 * The handler of `/plexus/card/1.0.0`: answers each request with the signed local cards, or
 * an error document. Never throws.
 */
export function cardHandler(init: ServeCardsInit): (stream: Stream) => Promise<void> {
  const logger = init.logger ?? silentLogger;
  return async (stream) => {
    const signal = AbortSignal.timeout(CARD_REQUEST_TIMEOUT_MS);
    try {
      const request = await readAll(stream, CARD_REQUEST_MAX_BYTES, signal);
      const verbs =
        request === 'too-large'
          ? new PlexusError(
              'INPUT_TOO_LARGE',
              `the card request is over ${CARD_REQUEST_MAX_BYTES} bytes; ask for fewer verbs`,
            )
          : parseCardRequest(request);
      if (verbs instanceof PlexusError) {
        await answer(stream, encode({ error: { code: verbs.code, message: verbs.message } }), signal);
        return;
      }
      const peer = init.peerCard?.();
      const d: JsonValue = {
        cards: localCards(init.registry, verbs),
        ...(peer === undefined ? {} : { peer }),
      };
      const signed = signEnvelope(d, { key: init.key, domain: CARD_DOMAIN, from: 'peerId' });
      let bytes = encode(signed);
      if (bytes.byteLength > CARD_RESPONSE_MAX_BYTES) {
        bytes = encode({
          error: {
            code: 'INPUT_TOO_LARGE',
            message: `the cards are over ${CARD_RESPONSE_MAX_BYTES} bytes; ask for fewer verbs`,
          },
        });
      }
      await answer(stream, bytes, signal);
    } catch (error) {
      logger.info({ err: toPlexusError(error).message }, 'card request not answered');
      stream.abort(error instanceof Error ? error : new Error(String(error)));
    }
  };
}

/** Options of {@link requestCards}. */
export interface RequestCardsInit {
  /** Checks the answer's signature (and remembers its nonce). */
  readonly verifier: EnvelopeVerifier;
  /** Ends the exchange. */
  readonly signal: AbortSignal;
}

/** A verified card answer. */
export interface CardAnswer {
  /** The answering peer's local cards. */
  readonly cards: readonly JsonObject[];
  /** Its peer card (MESH-50), when it sent one; checked by the receiver's claim rules. */
  readonly peer?: JsonObject;
}

/**
 * Asks `peer` for its cards offering one of `verbs`.
 *
 * @returns the cards (and the peer card) of a verified answer signed by `peer`.
 * @throws PlexusError `PEER_UNAVAILABLE` when the peer cannot be reached or answers an
 *   error; a signature code (`SIGNATURE_INVALID`, `SIGNER_MISMATCH`, …) for a bad answer;
 *   `INPUT_TOO_LARGE`, `PARSE_ERROR`, `TIMEOUT`.
 */
export async function requestCards(
  node: CardPeer,
  peer: PeerId,
  verbs: readonly string[],
  init: RequestCardsInit,
): Promise<CardAnswer> {
  const { signal } = init;
  let stream: Stream;
  try {
    stream = await node.dialProtocol(peer, CARD_PROTOCOL, { signal });
  } catch (error) {
    throw new PlexusError(
      'PEER_UNAVAILABLE',
      `cannot open ${CARD_PROTOCOL} to ${peer.toString()}: ${toPlexusError(error).message}`,
      { cause: error },
    );
  }
  await answer(stream, encode({ verbs }), signal);
  const reply = await readAll(stream, CARD_RESPONSE_MAX_BYTES, signal);
  if (reply === 'too-large') {
    stream.abort(new Error('answer too large'));
    throw new PlexusError(
      'INPUT_TOO_LARGE',
      `the cards of ${peer.toString()} are over ${CARD_RESPONSE_MAX_BYTES} bytes`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(reply));
  } catch {
    throw new PlexusError('PARSE_ERROR', `the card answer of ${peer.toString()} is not UTF-8 JSON`);
  }
  if (isJsonObject(value) && isJsonObject(value['error'])) {
    const { code, message } = value['error'];
    const text = (v: unknown): string => (typeof v === 'string' ? v.slice(0, 200) : '?');
    throw new PlexusError(
      'PEER_UNAVAILABLE',
      `${peer.toString()} refused the card request: ${text(code)} ${text(message)}`,
    );
  }
  const { signer, envelope } = init.verifier.verify(value, CARD_DOMAIN);
  if (signer.peerId !== peer.toString()) {
    throw new PlexusError(
      'SIGNER_MISMATCH',
      `the card answer of ${peer.toString()} is signed by ${signer.peerId}`,
    );
  }
  const d = isJsonObject(envelope.d) ? envelope.d : {};
  const cards = d['cards'];
  if (!Array.isArray(cards) || !cards.every(isJsonObject)) {
    throw new PlexusError('INVALID_PARAMS', `the card answer of ${peer.toString()} has no list "cards"`);
  }
  const card = d['peer'];
  if (card === undefined) return { cards };
  if (!isJsonObject(card)) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `the card answer of ${peer.toString()} has a "peer" that is not an object`,
    );
  }
  return { cards, peer: card };
}
