/**
 * ESRP validation rules shared by requests and responses: the version, the inputs/outputs,
 * base64 data and workspace URIs.
 */
import { childPointer } from '../problem.js';
import type { EsrpInput } from './model.js';
import type { FieldReader } from './reader.js';
import { WORKSPACE_URI_PREFIX, workspaceUriProblem } from './workspace-uri.js';

/** Why `version` is not an ESRP `1.x` version, or `undefined` when it is one. */
export function esrpVersionProblem(version: string): string | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})$/.exec(version);
  if (m === null || Number(m[1]) > 255 || Number(m[2]) > 255) {
    return `esrp_version must be "major.minor" (e.g. "1.0"), not ${JSON.stringify(version)}`;
  }
  if (Number(m[1]) !== 1) {
    return `esrp_version ${version} is not compatible with 1.x: major versions must match`;
  }
  return undefined;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** True when `data` is base64 (standard, padded) or base64url (unpadded). */
export function isBase64(data: string): boolean {
  if (BASE64.test(data) && data.length % 4 === 0) return true;
  return BASE64URL.test(data) && data.length % 4 !== 1;
}

/**
 * Checks one input or output against the ESRP rules: a non-empty name and content type, a
 * valid workspace URI (or at least non-empty data) for `path`, valid base64 for `base64`.
 */
export function checkDataItem(reader: FieldReader, item: EsrpInput, pointer: string): void {
  if (item.name === '') reader.problem(childPointer(pointer, 'name'), 'name must not be empty');
  if (item.content_type === '') {
    reader.problem(
      childPointer(pointer, 'content_type'),
      'content_type must not be empty (e.g. "text/plain")',
    );
  }
  const at = childPointer(pointer, 'data');
  if (item.encoding === 'path') {
    if (item.data.startsWith(WORKSPACE_URI_PREFIX)) {
      const why = workspaceUriProblem(item.data);
      if (why !== undefined) reader.problem(at, `workspace URI ${why}`);
    } else if (item.data === '') {
      reader.problem(at, 'data must not be empty when encoding is "path"');
    }
  } else if (item.encoding === 'base64' && !isBase64(item.data)) {
    reader.problem(at, 'data is not valid base64 although encoding is "base64"');
  }
}
