/**
 * `workspace://` URIs and artifact references as the artifact store reads them.
 *
 * The store parses its own namespace (it may not import `wire/`): a workspace URI is
 * `workspace://` followed by a relative path of one or more `/`-separated segments. The
 * path is taken literally (no percent-decoding) and must be safe to treat as a file path
 * on any platform, so the rules below reject anything that could climb out of the
 * workspace or mean different things on different systems.
 */
import { PlexusError } from '../core/errors.js';
import { isSha256Hex } from '../core/hash.js';

/** The scheme prefix of every workspace URI. */
export const WORKSPACE_SCHEME = 'workspace://';

/**
 * The path prefix of content-addressed URIs: `workspace://artifacts/sha256/<64 hex>`
 * names the content itself and needs no name binding.
 */
export const CONTENT_URI_PREFIX = `${WORKSPACE_SCHEME}artifacts/sha256/`;

/** Longest accepted workspace URI, in UTF-16 code units. */
export const MAX_WORKSPACE_URI_LENGTH = 1024;

// C0 controls, DEL and the C1 controls: never part of a portable path.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const DRIVE = /^[A-Za-z]:$/;

/** A parsed artifact reference: either a content hash or a workspace name. */
export type ArtifactLocator =
  | { readonly kind: 'hash'; readonly sha256: string }
  | { readonly kind: 'name'; readonly uri: string; readonly path: string };

/** The content-addressed URI of a sha256 digest (`workspace://artifacts/sha256/<hex>`). */
export function contentUri(sha256: string): string {
  return CONTENT_URI_PREFIX + sha256.toLowerCase();
}

function invalid(uri: string, why: string): PlexusError {
  return new PlexusError('INVALID_PARAMS', `invalid workspace URI ${JSON.stringify(uri)}: ${why}`, {
    details: { uri: uri.length > 200 ? uri.slice(0, 200) + '…' : uri },
  });
}

/**
 * Checks a `workspace://` URI and returns its path (the part after the scheme).
 *
 * Rules: the scheme is exactly `workspace://` (lower case); the path is non-empty, at most
 * {@link MAX_WORKSPACE_URI_LENGTH} characters in all, relative (no leading `/`, no drive
 * letter such as `C:`), and split on `/` gives only non-empty segments that are neither `.`
 * nor `..`; no backslash, NUL or other control character anywhere; no `?` or `#` (a
 * workspace URI names a file, it has no query or fragment).
 *
 * @throws PlexusError `INVALID_PARAMS` naming the rule that was broken.
 */
export function parseWorkspaceUri(uri: string): string {
  if (typeof uri !== 'string') throw invalid(String(uri), 'not a string');
  if (!uri.startsWith(WORKSPACE_SCHEME)) throw invalid(uri, `must start with ${WORKSPACE_SCHEME}`);
  if (uri.length > MAX_WORKSPACE_URI_LENGTH) {
    throw invalid(uri, `longer than ${MAX_WORKSPACE_URI_LENGTH} characters`);
  }
  const path = uri.slice(WORKSPACE_SCHEME.length);
  if (path.length === 0) throw invalid(uri, 'the path is empty');
  if (path.includes('\u0000')) throw invalid(uri, 'contains a NUL character');
  if (CONTROL.test(path)) throw invalid(uri, 'contains a control character');
  if (path.includes('\\')) throw invalid(uri, 'contains a backslash; use / between segments');
  if (path.includes('?') || path.includes('#')) {
    throw invalid(uri, 'contains ? or #; a workspace URI has no query or fragment');
  }
  if (path.startsWith('/')) throw invalid(uri, 'is an absolute path; the path must be relative');
  const segments = path.split('/');
  if (DRIVE.test(segments[0] ?? '')) throw invalid(uri, 'starts with a drive letter (absolute path)');
  for (const segment of segments) {
    if (segment === '') throw invalid(uri, 'has an empty path segment (// or a trailing /)');
    if (segment === '..') throw invalid(uri, 'has a .. segment');
    if (segment === '.') throw invalid(uri, 'has a . segment');
  }
  return path;
}

/**
 * Reads an artifact reference: a sha256 digest (64 hex characters, either case), a
 * content-addressed URI `workspace://artifacts/sha256/<hex>`, or any other valid workspace
 * URI (a name bound to content by an earlier `put`).
 *
 * @throws PlexusError `INVALID_PARAMS` when `ref` is none of these, naming the broken rule.
 */
export function parseArtifactRef(ref: string): ArtifactLocator {
  if (typeof ref !== 'string') {
    throw new PlexusError('INVALID_PARAMS', 'an artifact reference must be a string');
  }
  if (isSha256Hex(ref.toLowerCase())) return { kind: 'hash', sha256: ref.toLowerCase() };
  if (!ref.startsWith(WORKSPACE_SCHEME)) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `invalid artifact reference ${JSON.stringify(ref.slice(0, 200))}: expected 64 hex characters or a workspace:// URI`,
    );
  }
  const path = parseWorkspaceUri(ref);
  if (ref.startsWith(CONTENT_URI_PREFIX)) {
    const hex = ref.slice(CONTENT_URI_PREFIX.length);
    if (!isSha256Hex(hex.toLowerCase())) {
      throw invalid(ref, 'artifacts/sha256/ must be followed by exactly 64 hex characters');
    }
    return { kind: 'hash', sha256: hex.toLowerCase() };
  }
  return { kind: 'name', uri: ref, path };
}
