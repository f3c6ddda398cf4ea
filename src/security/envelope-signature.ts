/**
 * The signature block of a core `Envelope` (DESIGN §2, D3): attach one by signing the
 * envelope's `data`, and read one back as a signed envelope to verify.
 *
 * The block carries the signed-for domain in `dom` (unless asked not to), so a core
 * envelope signed for another domain fails as `SIGNATURE_DOMAIN_MISMATCH`.
 */
import type { Envelope, EnvelopeSignature } from '../core/envelope.js';
import { PlexusError } from '../core/errors.js';
import {
  assertSignedEnvelopeShape,
  signEnvelope,
  type SignEnvelopeInit,
  type SignedEnvelope,
} from './signed-envelope.js';

/** Returns the core signature block of a signed envelope (its fields without `d`). */
export function signatureBlock(signed: SignedEnvelope): EnvelopeSignature {
  const block = {
    v: 2,
    ts: signed.ts,
    nonce: signed.nonce,
    from: signed.from,
    pk: signed.pk,
    sig: signed.sig,
  } as const;
  return signed.dom === undefined ? block : { ...block, dom: signed.dom };
}

/**
 * Signs `envelope.data` for `init.domain` and returns a copy of the envelope carrying the
 * signature block.
 *
 * @throws PlexusError as `signEnvelope`.
 */
export function attachSignature(envelope: Envelope, init: SignEnvelopeInit): Envelope {
  const signed = signEnvelope(envelope.data, init);
  return { ...envelope, signature: signatureBlock(signed) };
}

/**
 * Returns the signed envelope a core envelope's signature block and `data` make up, ready
 * for `EnvelopeVerifier.verify`.
 *
 * @throws PlexusError `MALFORMED_ENVELOPE` when the envelope has no signature block or the
 *   block is malformed (`details.field` names the field).
 */
export function signedEnvelopeOf(envelope: Envelope): SignedEnvelope {
  const block = envelope.signature as Partial<EnvelopeSignature> | undefined;
  if (block === undefined || typeof block !== 'object' || (block as unknown) === null) {
    throw new PlexusError('MALFORMED_ENVELOPE', `envelope ${envelope.id} carries no signature block`, {
      details: { field: 'signature' },
    });
  }
  if (block.v !== 2) {
    throw new PlexusError(
      'MALFORMED_ENVELOPE',
      `signature field "v" must be 2, got ${JSON.stringify(block.v)}`,
      {
        details: { field: 'v' },
      },
    );
  }
  return assertSignedEnvelopeShape({
    _v: 2,
    ts: block.ts,
    nonce: block.nonce,
    from: block.from,
    pk: block.pk,
    sig: block.sig,
    ...(block.dom === undefined ? {} : { dom: block.dom }),
    d: envelope.data,
  });
}
