/**
 * Signed A2A cards (A2A v1.0 §8.4, docs/decisions/a2a.md A2A-4): a JWS with a detached payload,
 * the RFC 8785 canonical card without `signatures`, signed EdDSA with the node's Ed25519 key.
 */
import { canonicalizeJcs } from '../../core/canonical/jcs.js';
import { publicKeyFromDidKey } from '../../security/did-key.js';
import { verify } from '../../security/ed25519.js';
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

/** How a card's signatures check out: none, one valid, or only invalid or unverifiable ones. */
export type CardSignatureCheck = 'unsigned' | 'valid' | 'invalid';

/**
 * Checks the JWS signatures of a card (any JSON form): valid when one EdDSA signature verifies
 * with the Ed25519 key its `kid` names as a did:key (A2A-4's form). Signatures by other key kinds
 * or key locations cannot be checked here and count as invalid.
 */
export function checkCardSignatures(card: Readonly<Record<string, unknown>>): CardSignatureCheck {
  const signatures = card['signatures'];
  if (!Array.isArray(signatures) || signatures.length === 0) return 'unsigned';
  const payload = Buffer.from(cardSigningInput(card as unknown as A2aCard)).toString('base64url');
  for (const jws of signatures as { protected?: unknown; signature?: unknown }[]) {
    if (typeof jws.protected !== 'string' || typeof jws.signature !== 'string') continue;
    try {
      const header = JSON.parse(Buffer.from(jws.protected, 'base64url').toString('utf8')) as {
        alg?: unknown;
        kid?: unknown;
      };
      if (header.alg !== 'EdDSA' || typeof header.kid !== 'string' || !header.kid.startsWith('did:key:'))
        continue;
      const key = publicKeyFromDidKey(header.kid);
      const input = new TextEncoder().encode(`${jws.protected}.${payload}`);
      if (verify(input, Buffer.from(jws.signature, 'base64url'), key)) return 'valid';
    } catch {
      // a malformed header or key: not a valid signature
    }
  }
  return 'invalid';
}
