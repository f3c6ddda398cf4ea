// The UCAN 0.10 conformance fixtures of ucan-wg/conformance-tests (test/fixtures/ucan-conformance-0.10,
// see SOURCE.md there) run through Plexus's own token code: every `verify` fixture verifies as a
// chain, every `refute` fixture is refused for the reason listed below, every `build` fixture is
// rebuilt with the same claims, every `toCID` fixture gives the same CID. A fixture Plexus does
// not run is listed in SKIPPED with its reason; nothing is left out silently.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PlexusError } from '../../../src/core/errors.js';
import { keyPairFromSeed } from '../../../src/security/ed25519.js';
import { identityFromPublicKey } from '../../../src/security/identity.js';
import { ucanVerifier } from '../../../src/security/ucan/chain-verifier.js';
import {
  decodeUcan,
  signUcan,
  ucanCid,
  verifyUcanSignature,
  type Capabilities,
} from '../../../src/security/ucan/ucan-token.js';
import type { JsonObject } from '../../../src/core/json.js';
import { T0 } from './fixtures.js';

interface Fixture {
  readonly name: string;
  readonly task: 'verify' | 'refute' | 'build' | 'toCID';
  readonly inputs: Record<string, unknown>;
  readonly assertions?: { readonly payload?: JsonObject };
  readonly outputs?: Record<string, unknown>;
}

const DIR = new URL('../../fixtures/ucan-conformance-0.10/', import.meta.url);
const load = (file: string): Fixture[] => JSON.parse(readFileSync(new URL(file, DIR), 'utf8')) as Fixture[];
const VERIFY = load('verify.json');
const REFUTE = load('refute.json');
const BUILD = load('build.json');
const CID = load('cid.json');
const ALL = [...VERIFY, ...REFUTE, ...BUILD, ...CID];

/** Fixtures Plexus deliberately does not run, with the reason (D7: UCAN 0.10, EdDSA, did:key, SHA-256 CIDs). */
const SKIPPED: Readonly<Record<string, string>> = {
  'Compute CID for token using BLAKE3-256 hasher':
    'Plexus names tokens by SHA-256 CIDs only (DESIGN D7, D9); BLAKE3 is not implemented',
};

/** Why Plexus refuses each `refute` fixture (`details.reason` of the UNAUTHORIZED error). */
const REFUSAL_REASONS: Readonly<Record<string, string>> = {
  'UCAN has expired': 'expired',
  'UCAN is not ready to be used': 'not-yet-valid',
  // These two fixtures' proofs are also addressed to another principal than the token's
  // issuer, which Plexus checks before the time bounds.
  'UCAN expires after proofs': 'principal-alignment',
  'UCAN ready before proofs': 'principal-alignment',
  'UCAN header is missing typ field': 'malformed',
  'UCAN header is missing alg field': 'algorithm',
  'UCAN payload is missing ucv field': 'version',
  'UCAN payload is missing iss field': 'malformed',
  'UCAN payload is missing aud field': 'malformed',
  'UCAN payload is missing exp field': 'malformed',
  'UCAN payload is missing cap field': 'malformed',
  'UCAN header alg field is not a string': 'algorithm',
  'UCAN header typ field is not a string': 'malformed',
  'UCAN type is not JWT': 'malformed',
  'UCAN payload ucv field is not a string': 'version',
  'UCAN payload ucv field is not semantically versioned': 'version',
  'UCAN payload iss field is not a DID': 'malformed',
  'UCAN payload aud field is not a DID': 'malformed',
  'UCAN payload nbf field is not a number': 'malformed',
  'UCAN payload exp field is not a number': 'malformed',
  'UCAN payload nnc field is not a string': 'malformed',
  'UCAN payload fct field is not a JSON object': 'malformed',
  'UCAN payload cap field is not a JSON object': 'malformed',
  'UCAN payload cap field ability for resource is not a JSON object': 'malformed',
  'UCAN payload cap field caveat is not an array': 'malformed',
  'UCAN payload cap field caveat is an empty array': 'malformed',
  'UCAN payload prf field is not an array': 'malformed',
  'UCAN payload prf field is not an array of CIDs': 'malformed',
  // This fixture's token is signed by another key than its iss names (checked first).
  'UCAN issuer does not match proof audience': 'signature',
  'UCAN claims a capability that has not been delegated': 'widened',
  'UCAN escalates by adding a new caveat': 'widened',
  'UCAN escalates to no caveats': 'widened',
  'UCAN escalates by adding a different caveat': 'widened',
};

/** The payload of a token read without any check (for roots and audiences), or undefined. */
function rawPayload(jwt: string): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as JsonObject)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The token, its proofs, and what a verifier needs: the proof-less issuers as roots, the token's audience. */
function chainOf(f: Fixture): { container: string; roots: string[]; audience: string } {
  const token = f.inputs['token'] as string;
  const proofs = Object.values((f.inputs['proofs'] ?? {}) as Record<string, string>);
  const roots = new Set<string>();
  for (const jwt of [token, ...proofs]) {
    const p = rawPayload(jwt);
    const prf = p?.['prf'];
    if (typeof p?.['iss'] === 'string' && (!Array.isArray(prf) || prf.length === 0)) roots.add(p['iss']);
  }
  const aud = rawPayload(token)?.['aud'];
  // A token without a usable aud or iss is refused while decoding; any DID stands in for them.
  const stand = 'did:key:z6MkffDZCkCTWreg8868fG1FGFogcJj5X6PY93pPcWDn9bob';
  return {
    container: [token, ...proofs].join(','),
    roots: roots.size === 0 ? [stand] : [...roots],
    audience: typeof aud === 'string' && aud !== '' ? aud : stand,
  };
}

function verify(f: Fixture) {
  const { container, roots, audience } = chainOf(f);
  return ucanVerifier({ roots, audience, now: () => T0 }).verifyUncached(container);
}

function run(list: readonly Fixture[], body: (f: Fixture) => void): void {
  for (const f of list) {
    const reason = SKIPPED[f.name];
    if (reason === undefined) {
      it(f.name, () => {
        body(f);
      });
    } else {
      it.skip(`${f.name} — skipped: ${reason}`, () => {
        body(f);
      });
    }
  }
}

describe('UCAN 0.10 conformance fixtures (ucan-wg/conformance-tests)', () => {
  it('are all accounted for: each is run or skipped with a reason, each refusal has its reason', () => {
    expect(ALL.length).toBe(VERIFY.length + REFUTE.length + BUILD.length + CID.length);
    expect(new Set(ALL.map((f) => f.name)).size).toBe(ALL.length);
    for (const name of Object.keys(SKIPPED)) expect(ALL.map((f) => f.name)).toContain(name);
    expect(Object.keys(REFUSAL_REASONS).sort()).toEqual(REFUTE.map((f) => f.name).sort());
    expect(VERIFY.every((f) => f.task === 'verify')).toBe(true);
    expect(REFUTE.every((f) => f.task === 'refute')).toBe(true);
    expect(BUILD.every((f) => f.task === 'build')).toBe(true);
    expect(CID.every((f) => f.task === 'toCID')).toBe(true);
  });

  describe('verify: the chain verifies and decodes to the asserted payload', () => {
    run(VERIFY, (f) => {
      const chain = verify(f);
      const asserted = f.assertions?.payload ?? {};
      const payload = chain.leaf.payload as unknown as JsonObject;
      for (const [key, value] of Object.entries(asserted)) expect(payload[key], key).toEqual(value);
      expect(chain.cid).toBe(ucanCid(f.inputs['token'] as string));
    });
  });

  describe('refute: the chain is refused (UNAUTHORIZED) for the listed reason', () => {
    run(REFUTE, (f) => {
      let caught: unknown;
      try {
        verify(f);
      } catch (error) {
        caught = error;
      }
      expect(caught, 'the fixture was accepted').toBeInstanceOf(PlexusError);
      const error = caught as PlexusError;
      expect(error.code, error.message).toBe('UNAUTHORIZED');
      expect(error.details?.['reason'], error.message).toBe(REFUSAL_REASONS[f.name]);
    });
  });

  describe('build: Plexus signs a token with the same claims, and verifies the fixture token', () => {
    run(BUILD, (f) => {
      const i = f.inputs as {
        version: string;
        issuer_base64_key: string;
        signature_scheme: string;
        audience: string;
        expiration: number | null;
        not_before?: number;
        facts?: JsonObject;
        capabilities: Capabilities;
      };
      expect(i.signature_scheme).toBe('Ed25519');
      const raw = Buffer.from(i.issuer_base64_key, 'base64');
      expect(raw.byteLength).toBe(64); // seed (32 bytes) then public key (32 bytes)
      const key = keyPairFromSeed(new Uint8Array(raw.subarray(0, 32)));
      expect(Buffer.from(key.publicKey)).toEqual(raw.subarray(32));
      const built = signUcan({
        key,
        audience: i.audience,
        capabilities: i.capabilities,
        expiresAt: i.expiration === null ? null : i.expiration * 1000,
        ...(i.not_before === undefined ? {} : { notBefore: i.not_before * 1000 }),
        ...(i.facts === undefined ? {} : { facts: i.facts }),
        now: () => T0,
      });
      const expected = decodeUcan(f.outputs?.['token'] as string);
      expect(verifyUcanSignature(expected)).toBe(true);
      expect(expected.payload.iss).toBe(identityFromPublicKey(key.publicKey).did);
      // Plexus always writes a nonce (nnc) and a prf array, which 0.10 allows; every other claim matches.
      const claims: Record<string, unknown> = { ...built.payload };
      const expectedClaims: Record<string, unknown> = { ...expected.payload };
      expect(typeof claims['nnc']).toBe('string');
      delete claims['nnc'];
      delete expectedClaims['nnc'];
      expect(claims).toEqual(expectedClaims);
      expect(claims['ucv']).toBe(i.version);
    });
  });

  describe('toCID: the CID of a token', () => {
    run(CID, (f) => {
      expect(f.inputs['hasher']).toBe('SHA2-256');
      expect(ucanCid(f.inputs['token'] as string)).toBe(f.outputs?.['cid']);
    });
  });
});
