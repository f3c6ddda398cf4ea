/**
 * One entry point for both canonical profiles, for callers that take the profile as a
 * setting (the CLI's `--profile`).
 */
import { canonicalizeEsrp } from './esrp.js';
import { canonicalizeJcs } from './jcs.js';

/** The canonical JSON profiles of DESIGN D1. */
export const CANONICAL_PROFILES = ['jcs', 'esrp'] as const;

/** One of {@link CANONICAL_PROFILES}. */
export type CanonicalProfile = (typeof CANONICAL_PROFILES)[number];

/**
 * The canonical text of `value` in `profile`. For `esrp` from source text (numbers judged on
 * their text), use `canonicalizeEsrpText` or `canonicalizeEsrpDocumentText` instead.
 *
 * @throws PlexusError `INVALID_PARAMS` as `canonicalizeJcs` / `canonicalizeEsrp`.
 */
export function canonicalize(value: unknown, profile: CanonicalProfile): string {
  return profile === 'jcs' ? canonicalizeJcs(value) : canonicalizeEsrp(value);
}
