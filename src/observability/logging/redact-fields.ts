/**
 * The redaction every log entry passes through before it is written: each string, at any
 * depth (messages, error messages and stacks included), goes through the injected
 * `redact` function (the node hands in the guard primitive's PII detectors, OBS-20), and a
 * `user_id` member becomes `[REDACTED]` unless user ids are logged. Entries are copied, never
 * changed; the walk is bounded in depth and breadth, and cycle-safe.
 */
import { REDACTED } from './log-options.js';

/** Replaces personal data and secrets in a text (e.g. `ada@example.org` → `[REDACTED:email]`). */
export type TextRedactor = (text: string) => string;

/** How deep a log entry is walked; deeper values are written as `[…]`. */
const MAX_DEPTH = 8;

/** How many members or items of one object or array are kept; the rest are dropped. */
const MAX_ITEMS = 200;

/** The keys that hold a user id. */
const USER_KEYS = new Set(['user_id', 'userId']);

/** Options of {@link redactFields}. */
export interface RedactOptions {
  /** Applied to every string. */
  readonly redact: TextRedactor;
  /** When false, a `user_id` / `userId` member is written as `[REDACTED]`. */
  readonly logUserIds: boolean;
}

/**
 * A copy of `value` fit to be logged: strings redacted, user ids hidden (unless logged),
 * `Error`s as `{type, message, stack}`, functions and symbols dropped.
 *
 * @example
 * redactFields({ user_id: 'u1', note: 'mail ada@example.org' }, { redact, logUserIds: false })
 * // { user_id: '[REDACTED]', note: 'mail [REDACTED:email]' }
 */
export function redactFields(value: unknown, options: RedactOptions): unknown {
  const seen = new WeakSet<object>();
  const walk = (item: unknown, depth: number): unknown => {
    if (typeof item === 'string') return options.redact(item);
    if (item === null || typeof item !== 'object') {
      return typeof item === 'function' || typeof item === 'symbol' ? undefined : item;
    }
    if (seen.has(item)) return '[Circular]';
    if (depth >= MAX_DEPTH) return '[…]';
    seen.add(item);
    try {
      if (item instanceof Error) {
        return {
          type: item.name,
          message: options.redact(item.message),
          ...(item.stack === undefined ? {} : { stack: options.redact(item.stack) }),
        };
      }
      if (Array.isArray(item)) return item.slice(0, MAX_ITEMS).map((x) => walk(x, depth + 1));
      const out: Record<string, unknown> = {};
      let kept = 0;
      for (const [key, member] of Object.entries(item)) {
        if (kept++ >= MAX_ITEMS) break;
        const copy =
          USER_KEYS.has(key) && member !== null && member !== undefined && !options.logUserIds
            ? REDACTED
            : walk(member, depth + 1);
        if (copy !== undefined)
          Object.defineProperty(out, key, { value: copy, enumerable: true, writable: true });
      }
      return out;
    } finally {
      seen.delete(item);
    }
  };
  return walk(value, 0);
}
