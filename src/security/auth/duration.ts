/**
 * Token lifetimes written by people: `90s`, `15m`, `1h`, `7d`, `2w`, or a bare number of
 * seconds.
 */
import { PlexusError } from '../../core/errors.js';

/** The longest token lifetime accepted: 366 days, in seconds. */
export const MAX_TOKEN_TTL_SEC = 366 * 86_400;

const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 } as const;
const DURATION = /^([1-9][0-9]{0,9})\s*([smhdw]?)$/;

/**
 * Returns a token lifetime in whole seconds.
 *
 * @param ttl seconds as a positive integer, or text: digits with an optional unit
 *   `s`, `m`, `h`, `d` or `w` (`"1h"`, `"30m"`, `"3600"`).
 * @throws PlexusError `INVALID_PARAMS` when it is not a positive whole number of seconds or
 *   longer than 366 days.
 * @example parseTtl('15m') // 900
 */
export function parseTtl(ttl: number | string): number {
  let seconds: number;
  if (typeof ttl === 'number') {
    seconds = ttl;
  } else {
    const match = typeof ttl === 'string' ? DURATION.exec(ttl.trim()) : null;
    if (match === null) {
      throw new PlexusError(
        'INVALID_PARAMS',
        `token lifetime ${JSON.stringify(ttl)} is not a duration: write e.g. "3600", "90s", "15m", "1h", "7d" or "2w"`,
      );
    }
    const unit = (match[2] ?? '') === '' ? 's' : (match[2] as keyof typeof UNIT_SECONDS);
    seconds = Number(match[1]) * UNIT_SECONDS[unit];
  }
  if (!Number.isSafeInteger(seconds) || seconds <= 0) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `token lifetime must be a positive whole number of seconds, got ${String(ttl)}`,
    );
  }
  if (seconds > MAX_TOKEN_TTL_SEC) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `token lifetime ${String(ttl)} is longer than the limit of 366 days; issue shorter tokens and renew them`,
    );
  }
  return seconds;
}
