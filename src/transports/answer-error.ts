/**
 * The Plexus error an `error` answer envelope carries (its data is `ErrorData`), for faces that
 * answer a failed invocation in their own form (MCP's `isError` result, A2A's error).
 */
import type { Envelope } from '../core/envelope.js';
import { PlexusError, isPlexusErrorCode } from '../core/errors.js';
import { isJsonObject } from '../core/json.js';

/** The error of an `error` answer envelope (`INTERNAL` when its data is not `ErrorData`). */
export function errorOfAnswer(answer: Envelope): PlexusError {
  const data = answer.data;
  if (isJsonObject(data) && isPlexusErrorCode(data['code']) && typeof data['message'] === 'string') {
    return new PlexusError(data['code'], data['message']);
  }
  return new PlexusError('INTERNAL', 'the agent answered with an error without ErrorData');
}
