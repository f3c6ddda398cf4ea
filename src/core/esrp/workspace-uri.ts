/**
 * `workspace://<namespace>/<path>` URIs, checked as the ESRP reference checks them
 * (crates esrp-core `validate_workspace_uri` and esrp-workspace `WorkspaceUri::parse`), with
 * a few stricter rules of Plexus's own (see docs/decisions/canonical-esrp.md).
 */

/** The scheme prefix of a workspace URI. */
export const WORKSPACE_URI_PREFIX = 'workspace://';

const NAMESPACE = /^[A-Za-z0-9._-]+$/;
const MAX_NAMESPACE_LENGTH = 64;
const MAX_PATH_BYTES = 1024;
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Why `uri` is not an acceptable workspace URI, or `undefined` when it is.
 *
 * Rules: the `workspace://` prefix; a namespace of 1–64 characters from `A–Z a–z 0–9 . _ -`;
 * a non-empty relative path of at most 1024 UTF-8 bytes after the first `/`; no `..`
 * anywhere; no leading `/` or drive letter; no backslash and no control character (NUL
 * included).
 */
export function workspaceUriProblem(uri: string): string | undefined {
  if (!uri.startsWith(WORKSPACE_URI_PREFIX)) return `must start with '${WORKSPACE_URI_PREFIX}'`;
  const rest = uri.slice(WORKSPACE_URI_PREFIX.length);
  if (rest === '') return 'is missing the namespace and path (workspace://<namespace>/<path>)';
  if (rest.includes('..')) return 'contains a path traversal (..)';
  if (rest.includes('\\')) return 'contains a backslash; use / to separate path segments';
  if (CONTROL.test(rest)) return 'contains a control character (NUL included)';
  const slash = rest.indexOf('/');
  if (slash < 0) return 'has a namespace but no path (workspace://<namespace>/<path>)';
  const namespace = rest.slice(0, slash);
  const path = rest.slice(slash + 1);
  if (namespace === '') return 'has an empty namespace';
  if (namespace.length > MAX_NAMESPACE_LENGTH) {
    return `has a namespace longer than ${MAX_NAMESPACE_LENGTH} characters`;
  }
  if (!NAMESPACE.test(namespace)) {
    return `has namespace '${namespace}' with a character outside A-Z a-z 0-9 . _ -`;
  }
  if (path === '') return 'has an empty path';
  if (path.startsWith('/')) return 'has an absolute path; the path must be relative (no leading /)';
  if (/^[A-Za-z]:/.test(path)) return 'has a drive-letter path; the path must be relative';
  if (utf8Length(path) > MAX_PATH_BYTES) {
    return `has a path longer than ${MAX_PATH_BYTES} bytes`;
  }
  return undefined;
}

/** The number of bytes `s` takes in UTF-8 (a lone surrogate counts as the 3 bytes of U+FFFD). */
function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}
