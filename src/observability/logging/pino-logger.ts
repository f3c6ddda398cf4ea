/**
 * The node's structured log (issue 16 item 3; seed 002 §7.3): a pino logger behind Plexus's
 * {@link Logger} contract. Each entry is one JSON line with `timestamp` (ISO 8601), `level`
 * (its name), the active OpenTelemetry span's `trace_id` / `span_id` when there is one, the
 * entry's fields and `msg`; or, with the `pretty` format, pino-pretty's text. Every entry is
 * redacted first ({@link redactFields}): strings through the injected redactor, `user_id` as
 * `[REDACTED]` unless user ids are logged.
 *
 * Lines are handed to `write` synchronously, one call per line, so a command can send them to
 * its own stdout or stderr (and a test can capture them).
 */
import { createRequire } from 'node:module';
import { pino, type Logger as Pino } from 'pino';
import type { prettyFactory as PrettyFactory } from 'pino-pretty';
import type { Logger } from '../../core/logger.js';
import { DEFAULT_LOG_LEVEL, type LogFormat, type LogLevel } from './log-options.js';
import { redactFields, type TextRedactor } from './redact-fields.js';
import { activeTraceIds } from './trace-ids.js';

/** A {@link Logger} with every level and its own level and format. */
export interface StructuredLogger extends Logger {
  debug(obj: object, msg?: string): void;
  /** Logs the finest detail. */
  trace(obj: object, msg?: string): void;
  /** The level it writes at and above. */
  readonly level: LogLevel;
  /** Its format. */
  readonly format: LogFormat;
}

/** Options of {@link pinoLogger}. */
export interface PinoLoggerInit {
  /** Receives each line, newline included. */
  readonly write: (line: string) => void;
  /** @default 'info' */
  readonly level?: LogLevel;
  /** @default 'json' */
  readonly format?: LogFormat;
  /** Applied to every string of every entry (the guard's PII redaction). @default none */
  readonly redact?: TextRedactor;
  /** Writes `user_id` as it is (still through `redact`). @default false */
  readonly logUserIds?: boolean;
  /** Colours in the `pretty` format. @default false */
  readonly colorize?: boolean;
}

const asIs: TextRedactor = (text) => text;

/** pino-pretty, loaded only when a logger is pretty (every command would pay its import). */
function prettyFactory(options: Parameters<typeof PrettyFactory>[0]): ReturnType<typeof PrettyFactory> {
  const load = createRequire(import.meta.url)('pino-pretty') as { prettyFactory: typeof PrettyFactory };
  return load.prettyFactory(options);
}

type Method = 'trace' | 'debug' | 'info' | 'warn' | 'error';

/**
 * Creates a structured logger.
 *
 * @example
 * const logger = pinoLogger({ write: (line) => process.stdout.write(line), redact: redactPii });
 * logger.info({ verb: 'math.evaluate', user_id: 'ada@example.org' }, 'invocation');
 * // {"level":"info","timestamp":"…","verb":"math.evaluate","user_id":"[REDACTED]","msg":"invocation"}
 */
export function pinoLogger(init: PinoLoggerInit): StructuredLogger {
  const level = init.level ?? DEFAULT_LOG_LEVEL;
  const format = init.format ?? 'json';
  const options = { redact: init.redact ?? asIs, logUserIds: init.logUserIds ?? false };
  const pretty =
    format === 'pretty'
      ? prettyFactory({
          colorize: init.colorize ?? false,
          timestampKey: 'timestamp',
          translateTime: 'SYS:HH:MM:ss.l',
          messageKey: 'msg',
          // a crashed handler's stack reads as a stack, below its line
          customPrettifiers: {
            stack: (value: unknown) =>
              typeof value === 'string' ? `\n${value.replace(/^/gm, '      ')}` : JSON.stringify(value),
          },
        })
      : undefined;
  const destination = {
    write:
      pretty === undefined
        ? init.write
        : (line: string) => {
            init.write(pretty(line));
          },
  };
  const base: Pino = pino(
    {
      level,
      base: null,
      messageKey: 'msg',
      timestamp: () => `,"timestamp":"${new Date().toISOString()}"`,
      formatters: { level: (label) => ({ level: label }) },
      mixin: () => {
        const ids = activeTraceIds();
        return ids === undefined ? {} : { trace_id: ids.traceId, span_id: ids.spanId };
      },
    },
    destination,
  );
  const method =
    (name: Method) =>
    (obj: object, msg?: string): void => {
      if (!base.isLevelEnabled(name)) return;
      const fields = redactFields(obj, options) as object;
      if (msg === undefined) base[name](fields);
      else base[name](fields, options.redact(msg));
    };
  return {
    trace: method('trace'),
    debug: method('debug'),
    info: method('info'),
    warn: method('warn'),
    error: method('error'),
    level,
    format,
  };
}
