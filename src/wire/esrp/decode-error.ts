/**
 * The error an ESRP codec throws when decoding fails: `VERSION_MISMATCH` when the document
 * speaks an incompatible `esrp_version`, otherwise the core `invalidDocument` error.
 */
import { PlexusError } from '../../core/errors.js';
import { invalidDocument } from '../../core/esrp/request.js';
import type { Problem } from '../../core/problem.js';

/** Builds the decode error of an ESRP request or response with `problems`. */
export function esrpDecodeError(what: 'request' | 'response', problems: readonly Problem[]): PlexusError {
  const base = invalidDocument(what, problems);
  const version = problems.some((p) => p.pointer === '/esrp_version' && p.message.includes('not compatible'));
  return version ? new PlexusError('VERSION_MISMATCH', base.message, { details: base.details ?? {} }) : base;
}
