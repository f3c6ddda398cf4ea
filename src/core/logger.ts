/**
 * The one logger type of Plexus: a structured, pino-compatible subset (`info`, `warn`,
 * `error`, each taking a fields object and an optional message; `debug` where the logger has
 * one, for the chatty lines such as each envelope a node forwards). Faces, the router, the
 * runtime and the command line all log through it; a pino logger can be
 * passed as is. Plexus code never uses `console`.
 */

/** A minimal structured logger (pino-compatible subset). */
export interface Logger {
  /** Logs detail for whoever is debugging (optional: call it as `logger.debug?.(…)`). */
  debug?(obj: object, msg?: string): void;
  /** Logs something worth knowing in normal operation. */
  info(obj: object, msg?: string): void;
  /** Logs a failure Plexus recovered from. */
  warn(obj: object, msg?: string): void;
  /** Logs a failure someone must look at. */
  error(obj: object, msg?: string): void;
}

/** A logger that drops everything (the default wherever a logger is optional). */
export const silentLogger: Logger = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
