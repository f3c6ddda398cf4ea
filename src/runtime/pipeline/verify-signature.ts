/**
 * Pipeline step `verify_signature`: an envelope carrying a signature block (D3) is verified
 * for the domain `plexus/rpc/<verb>` with the node's verifier (timestamp window, replay
 * cache). Unsigned requests pass unless the node requires signatures.
 */
import type { Envelope } from '../../core/envelope.js';
import { PlexusError } from '../../core/errors.js';
import type { EnvelopeVerifier } from '../../security/envelope-verifier.js';
import { signedEnvelopeOf } from '../../security/envelope-signature.js';
import type { KeyIdentity } from '../../security/identity.js';
import { rpcDomain } from '../../security/signing-digest.js';

/** Options of {@link verifySignatureStep}. */
export interface VerifySignatureOptions {
  /** The node's verifier; without one, signed envelopes cannot be checked. */
  readonly verifier?: EnvelopeVerifier;
  /** Reject unsigned requests. @default false */
  readonly requireSignatures?: boolean;
}

/**
 * Verifies the envelope's signature, if any, and returns the signer.
 *
 * @throws PlexusError `UNAUTHORIZED` for an unsigned request when signatures are required,
 *   or a signed one when no verifier is configured; `MALFORMED_ENVELOPE`,
 *   `SIGNER_MISMATCH`, `SIGNATURE_EXPIRED`, `SIGNATURE_REPLAYED` or `SIGNATURE_INVALID` from
 *   the verifier (a changed payload is `SIGNATURE_INVALID`; a signature made for another
 *   verb is `SIGNATURE_INVALID` or `SIGNATURE_DOMAIN_MISMATCH`).
 */
export function verifySignatureStep(
  envelope: Envelope,
  options: VerifySignatureOptions,
): KeyIdentity | undefined {
  if (envelope.signature === undefined) {
    if (options.requireSignatures === true) {
      throw new PlexusError(
        'UNAUTHORIZED',
        'this node accepts signed requests only; sign the envelope (D3)',
        {
          details: { pointer: '/signature' },
        },
      );
    }
    return undefined;
  }
  if (options.verifier === undefined) {
    throw new PlexusError(
      'UNAUTHORIZED',
      'this node cannot verify signed requests (no verifier configured)',
      {
        details: { pointer: '/signature' },
      },
    );
  }
  return options.verifier.verify(signedEnvelopeOf(envelope), rpcDomain(envelope.verb)).signer;
}
