/**
 * The node's structured log (docs/observability.md, Logs): the observability layer's pino
 * logger with the guard primitive's PII redaction injected (OBS-20: the detectors stay in
 * `primitives/`, the logger takes a redactor function), configured by the `logging:` section
 * of plexus.yaml and the flags of `plexus start`.
 */
import { redactPii } from '../primitives/guard/pii.js';
import type { LogFormat, LogLevel } from '../observability/logging/log-options.js';
import { pinoLogger, type StructuredLogger } from '../observability/logging/pino-logger.js';
import type { LoggingConfig } from './config-schema.js';

/** Options of {@link nodeLogger}. */
export interface NodeLoggerInit {
  /** Receives each line (newline included). */
  readonly write: (line: string) => void;
  /** The `logging:` section. */
  readonly config?: LoggingConfig;
  /** Overrides `config.level` (`--log-level`). */
  readonly level?: LogLevel;
  /** Overrides `config.format` (`--log-format`); else `pretty` when `tty`, else `json`. */
  readonly format?: LogFormat;
  /** Whether the output is a terminal (decides the default format and colours). */
  readonly tty?: boolean;
}

/**
 * Creates the node's logger: PII redacted in every string, `user_id` hidden unless
 * `logging.logUserIds`.
 *
 * @example
 * const logger = nodeLogger({ write: (line) => process.stdout.write(line), config: { level: 'debug' } });
 * createNode({ logger });
 */
export function nodeLogger(init: NodeLoggerInit): StructuredLogger {
  const format = init.format ?? init.config?.format ?? (init.tty === true ? 'pretty' : 'json');
  return pinoLogger({
    write: init.write,
    level: init.level ?? init.config?.level ?? 'info',
    format,
    redact: redactPii,
    logUserIds: init.config?.logUserIds === true,
    colorize: init.tty === true && format === 'pretty',
  });
}
