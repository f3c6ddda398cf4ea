/**
 * Reading an Emergence ERROR as a {@link PlexusError}.
 */
import type { Envelope } from '../../core/envelope.js';
import { ERROR_TABLE, PlexusError, isPlexusErrorCode } from '../../core/errors.js';
import type { ErrorData } from '../../core/errors.js';
import { isJsonObject } from '../../core/json.js';
import type { JsonObject } from '../../core/json.js';
import { plexusCodeFromEmergence } from './error-table.js';
import { PLEXUS_ERROR_EXTENSION } from './message.js';

/**
 * Turns an error envelope into a {@link PlexusError}.
 *
 * For a decoded ERROR (`data` = `{code: integer, msg}`): the code is
 * `plexusCodeFromEmergence(data.code)` (429 → RATE_LIMITED, 501 → UNKNOWN_VERB, …), the message is
 * `msg`, `retryable` the code's default, and `details` `{emergenceCode: data.code}`. When the
 * ERROR came from a Plexus peer it carries `_x_plexus_error` `{code, retryable, details?}`;
 * a well-formed one wins, so the original Plexus error comes back exactly. An envelope whose
 * `data` is a core `ErrorData` (built locally, never encoded) is read with
 * `PlexusError.fromData`.
 *
 * @throws PlexusError `INVALID_PARAMS` when `envelope` is not of kind `error` or its `data`
 *   is neither `{code: integer, msg: string}` nor an ErrorData.
 */
export function emergenceErrorToPlexus(envelope: Envelope): PlexusError {
  const data = envelope.data;
  if (envelope.kind !== 'error' || !isJsonObject(data)) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `expected an error envelope with object data, got kind "${envelope.kind}"`,
    );
  }
  if (typeof data.code === 'string' && typeof data.message === 'string') {
    return PlexusError.fromData(data as unknown as ErrorData);
  }
  if (typeof data.code !== 'number' || !Number.isSafeInteger(data.code) || typeof data.msg !== 'string') {
    throw new PlexusError(
      'INVALID_PARAMS',
      'an Emergence ERROR must carry data {code: integer, msg: string}',
    );
  }
  const plexus = envelope.extensions?.[PLEXUS_ERROR_EXTENSION];
  if (isJsonObject(plexus) && isPlexusErrorCode(plexus.code)) {
    const retryable =
      typeof plexus.retryable === 'boolean' ? plexus.retryable : ERROR_TABLE[plexus.code].retryable;
    return isJsonObject(plexus.details)
      ? new PlexusError(plexus.code, data.msg, { retryable, details: plexus.details })
      : new PlexusError(plexus.code, data.msg, { retryable });
  }
  const details: JsonObject = { emergenceCode: data.code };
  return new PlexusError(plexusCodeFromEmergence(data.code), data.msg, { details });
}
