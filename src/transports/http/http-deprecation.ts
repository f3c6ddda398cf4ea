/**
 * HTTP headers of deprecation and recovery, shared by the HTTP faces:
 *
 * - `Deprecation: @<unix seconds>` (RFC 9745) — when the era called is (or will be) deprecated;
 * - `Sunset: <HTTP-date>` (RFC 8594) — when it stops being served;
 * - `Link: <guide>; rel="deprecation"` (RFC 9745 §3) — where to read how to migrate;
 * - `Retry-After: <seconds>` (RFC 9110 §10.2.3) — on errors a caller may retry.
 *
 * When one answer carries several warnings (several eras answered a broadcast), the headers
 * describe the first; the body lists them all.
 */
import { recoveryFields } from '../../core/error-recovery.js';
import type { ErrorData } from '../../core/errors.js';
import { dayStartMs, type EraWarning } from '../../runtime/pipeline/era.js';

/** A `Link` target must not contain these (RFC 8288 URI-reference in angle brackets). */
const UNSAFE_LINK = /[\s<>"]/;

/** The `Deprecation`, `Sunset` and `Link` headers of the first warning (none: `{}`). */
export function deprecationHeaders(warnings: readonly EraWarning[]): Record<string, string> {
  const first = warnings[0];
  if (first === undefined) return {};
  const out: Record<string, string> = {};
  const deprecatedAt = dayStartMs(first.deprecated_at);
  if (!Number.isNaN(deprecatedAt)) out['deprecation'] = `@${Math.floor(deprecatedAt / 1000)}`;
  const sunsetAt = first.sunset_at === undefined ? Number.NaN : dayStartMs(first.sunset_at);
  if (!Number.isNaN(sunsetAt)) out['sunset'] = new Date(sunsetAt).toUTCString();
  const guide = first.migration_guide;
  if (guide !== undefined && guide !== '' && !UNSAFE_LINK.test(guide)) {
    out['link'] = `<${guide}>; rel="deprecation"`;
  }
  return out;
}

/** `Retry-After` (whole seconds) for an error a caller may retry and that has a delay. */
export function retryAfterHeader(error: ErrorData): Record<string, string> {
  if (!error.retryable) return {};
  const { retry_after: seconds } = recoveryFields(error);
  return seconds === undefined ? {} : { 'retry-after': String(seconds) };
}
