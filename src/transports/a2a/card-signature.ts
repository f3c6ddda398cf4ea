/**
 * Signed A2A cards (A2A v1.0 §8.4, docs/decisions/a2a.md A2A-4): a JWS with a detached payload,
 * the RFC 8785 canonical card without `signatures`, signed EdDSA with the node's Ed25519 key.
 */
import { canonicalizeJcs } from '../../core/canonical/jcs.js';
import type { NodeSigner } from '../face-components.js';
import type { A2aCard } from './a2a-card.js';

/** One JWS signature of a card (flattened JSON form, payload detached). */
export interface A2aCardSignature {
  readonly protected: string;
  readonly signature: string;
}

/** The bytes a card signature covers: the canonical card without `signatures`. */
export function cardSigningInput(card: A2aCard): Uint8Array {
  const unsigned = Object.fromEntries(Object.entries(card).filter(([key]) => key !== 'signatures'));
  return new TextEncoder().encode(canonicalizeJcs(unsigned));
}

/** `card` with one signature by `signer` (any previous signatures replaced). */
export function signA2aCard(card: A2aCard, signer: NodeSigner): A2aCard {
  const header = Buffer.from(JSON.stringify({ alg: 'EdDSA', typ: 'JOSE', kid: signer.kid })).toString(
    'base64url',
  );
  const payload = Buffer.from(cardSigningInput(card)).toString('base64url');
  const signature = Buffer.from(signer.sign(new TextEncoder().encode(`${header}.${payload}`))).toString(
    'base64url',
  );
  return { ...card, signatures: [{ protected: header, signature }] };
}
