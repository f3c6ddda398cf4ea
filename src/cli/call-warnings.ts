/**
 * `plexus call` and deprecated eras (seed 002 §10.3): the warnings of an ESRP answer are
 * printed on stderr, one line each, so stdout keeps only the result.
 */
import { esrpWarningsOf } from '../sdk/warnings.js';
import type { CliIo } from './io.js';

/** The lines `plexus call` prints on stderr for the deprecation warnings of an answer. */
export function warningLines(body: unknown, headers?: Headers): string[] {
  const warnings = esrpWarningsOf(body);
  if (warnings.length > 0) return warnings.map((w) => `plexus: warning: ${w.message}\n`);
  // An accepted (async) answer has no body field for warnings: its headers say it (RFC 9745, RFC 8594).
  const deprecation = headers?.get('deprecation');
  if (deprecation === null || deprecation === undefined) return [];
  const sunset = headers?.get('sunset');
  const seconds = /^@(-?\d+)$/.exec(deprecation)?.[1];
  const since =
    seconds === undefined ? deprecation : new Date(Number(seconds) * 1000).toISOString().slice(0, 10);
  const until = sunset === null || sunset === undefined ? '' : `; it stops being served on ${sunset}`;
  return [`plexus: warning: this verb is deprecated (since ${since})${until}\n`];
}

/** Prints the deprecation warnings of an answer on stderr. */
export function printWarnings(io: CliIo, body: unknown, headers?: Headers): void {
  for (const line of warningLines(body, headers)) io.stderr(line);
}
