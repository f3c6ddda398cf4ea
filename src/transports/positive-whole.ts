/**
 * The check of a face's whole-number option that must be at least 1 (intervals, timeouts, page
 * sizes), with the message its callers have always given.
 */
import { PlexusError } from '../core/errors.js';

/**
 * `value`, checked to be a whole number ≥ 1.
 * @throws PlexusError `INVALID_PARAMS` naming the option `name`.
 */
export function positiveWhole(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new PlexusError('INVALID_PARAMS', `${name} must be a whole number ≥ 1, got ${String(value)}`);
  }
  return value;
}
