/**
 * Span and trace ids for the node's spans, made in batches (OBS-61): 4 KiB of random bytes at a
 * time, turned into one hex string by one native call, each id then a slice of it — a constant-
 * time view, no per-id formatting. The OTLP encoder reads an id's bytes back from its hex
 * through a table; a `traceparent` header uses the hex as it is.
 */
import { randomFillSync } from 'node:crypto';

const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let hex = '';
/** The next unused hex character of {@link hex}. */
let at = hex.length;

const ZERO_SPAN = '0'.repeat(16);
const ZERO_TRACE = '0'.repeat(32);

function take(chars: number): string {
  if (at + chars > hex.length) {
    randomFillSync(pool);
    hex = pool.toString('hex');
    at = 0;
  }
  const id = hex.slice(at, at + chars);
  at += chars;
  return id;
}

/** A random span id: 16 lower-case hex characters, never all zeros (W3C Trace Context). */
export function newSpanIdHex(): string {
  for (;;) {
    const id = take(16);
    if (id !== ZERO_SPAN) return id;
  }
}

/** A random trace id: 32 lower-case hex characters, never all zeros. */
export function newTraceIdHex(): string {
  for (;;) {
    const id = take(32);
    if (id !== ZERO_TRACE) return id;
  }
}
