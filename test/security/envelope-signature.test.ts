import { describe, expect, it } from 'vitest';
import type { Envelope, EnvelopeSignature } from '../../src/core/envelope.js';
import { keyPairFromSeed } from '../../src/security/ed25519.js';
import { attachSignature, signatureBlock, signedEnvelopeOf } from '../../src/security/envelope-signature.js';
import { envelopeVerifier } from '../../src/security/envelope-verifier.js';
import { signEnvelope } from '../../src/security/signed-envelope.js';
import { rpcDomain } from '../../src/security/signing-digest.js';
import { expectPlexusError } from './expect-error.js';

const TS = 1735689600000;
const KEY = keyPairFromSeed('c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7');
const now = () => TS;
const ENVELOPE: Envelope = {
  id: '0b6f3c1e-4d2a-4f8e-9c1b-2a7d5e6f8a90',
  kind: 'request',
  from: 'did:key:z6MkSomething',
  to: 'broadcast',
  verb: 'memory.search',
  data: { query: 'gossip meshes', limit: 5 },
};

describe('attachSignature', () => {
  it('signs the envelope data and adds the D3 block without touching other fields', () => {
    const signed = attachSignature(ENVELOPE, { key: KEY, domain: rpcDomain(ENVELOPE.verb), now });
    expect({ ...signed, signature: undefined }).toEqual({ ...ENVELOPE, signature: undefined });
    const block = signed.signature!;
    expect(Object.keys(block)).toEqual(['v', 'ts', 'nonce', 'from', 'pk', 'sig', 'dom']);
    expect(block.v).toBe(2);
    expect(block.dom).toBe('plexus/rpc/memory.search');
    expect(block.ts).toBe(TS);
    expect(ENVELOPE.signature).toBeUndefined();
  });

  it('round-trips through signedEnvelopeOf into the verifier', () => {
    const signed = attachSignature(ENVELOPE, { key: KEY, domain: rpcDomain(ENVELOPE.verb), now });
    const verified = envelopeVerifier({ now }).verify(signedEnvelopeOf(signed), 'plexus/rpc/memory.search');
    expect(verified.signer.did).toBe(signed.signature!.from);
  });

  it("detects changed data, and tells a domain mismatch apart through the block's dom", () => {
    const signed = attachSignature(ENVELOPE, { key: KEY, domain: rpcDomain(ENVELOPE.verb), now });
    const tampered = { ...signed, data: { query: 'something else', limit: 5 } };
    expectPlexusError(
      () => envelopeVerifier({ now }).verify(signedEnvelopeOf(tampered), rpcDomain('memory.search')),
      'SIGNATURE_INVALID',
    );
    expectPlexusError(
      () => envelopeVerifier({ now }).verify(signedEnvelopeOf(signed), rpcDomain('memory.write')),
      'SIGNATURE_DOMAIN_MISMATCH',
    );
    // Without dom, the wrong domain can only show as a bad signature.
    const bare = attachSignature(ENVELOPE, {
      key: KEY,
      domain: rpcDomain(ENVELOPE.verb),
      now,
      includeDomain: false,
    });
    expect(bare.signature!.dom).toBeUndefined();
    expectPlexusError(
      () => envelopeVerifier({ now }).verify(signedEnvelopeOf(bare), rpcDomain('memory.write')),
      'SIGNATURE_INVALID',
    );
  });
});

describe('signatureBlock', () => {
  it('copies the header fields of a signed envelope, with dom when it has one', () => {
    const env = signEnvelope(1, { key: KEY, domain: 't', now });
    expect(signatureBlock(env)).toEqual({
      v: 2,
      ts: env.ts,
      nonce: env.nonce,
      from: env.from,
      pk: env.pk,
      sig: env.sig,
      dom: 't',
    });
    const bare = signEnvelope(1, { key: KEY, domain: 't', now, includeDomain: false });
    expect(signatureBlock(bare)).not.toHaveProperty('dom');
  });
});

describe('signedEnvelopeOf', () => {
  it('is MALFORMED_ENVELOPE when there is no signature block', () => {
    const e = expectPlexusError(() => signedEnvelopeOf(ENVELOPE), 'MALFORMED_ENVELOPE');
    expect(e.details).toEqual({ field: 'signature' });
  });

  it('is MALFORMED_ENVELOPE naming the field when the block is malformed', () => {
    const signed = attachSignature(ENVELOPE, { key: KEY, domain: 't', now });
    const withBlock = (patch: Partial<Record<keyof EnvelopeSignature, unknown>>): Envelope =>
      ({ ...signed, signature: { ...signed.signature!, ...patch } }) as Envelope;
    expect(
      expectPlexusError(() => signedEnvelopeOf(withBlock({ v: 1 })), 'MALFORMED_ENVELOPE').details,
    ).toEqual({ field: 'v' });
    expect(
      expectPlexusError(() => signedEnvelopeOf(withBlock({ pk: 'short' })), 'MALFORMED_ENVELOPE').details,
    ).toEqual({
      field: 'pk',
    });
    expect(
      expectPlexusError(() => signedEnvelopeOf(withBlock({ ts: 'now' })), 'MALFORMED_ENVELOPE').details,
    ).toEqual({
      field: 'ts',
    });
  });
});
