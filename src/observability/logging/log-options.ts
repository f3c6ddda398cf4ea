/**
 * The settings of a node's structured log (docs/observability.md, "Logs"): its level, its
 * format, and whether user ids are written as they are. `plexus start --log-level` and
 * `--log-format`, and the `logging:` section of plexus.yaml, name these values.
 */

/** The levels, most detailed first; `silent` writes nothing. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'silent'] as const;

/** One of {@link LOG_LEVELS}. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** `json`: one JSON object a line; `pretty`: pino-pretty's coloured text, for a terminal. */
export const LOG_FORMATS = ['json', 'pretty'] as const;

/** One of {@link LOG_FORMATS}. */
export type LogFormat = (typeof LOG_FORMATS)[number];

/** The level a node logs at when none is given. */
export const DEFAULT_LOG_LEVEL: LogLevel = 'info';

/** What `user_id` reads as unless user ids are logged (`logging.logUserIds: true`). */
export const REDACTED = '[REDACTED]';

/** True when `value` is a {@link LogLevel}. */
export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === 'string' && (LOG_LEVELS as readonly string[]).includes(value);
}

/** True when `value` is a {@link LogFormat}. */
export function isLogFormat(value: unknown): value is LogFormat {
  return typeof value === 'string' && (LOG_FORMATS as readonly string[]).includes(value);
}
