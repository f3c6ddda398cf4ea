/**
 * A recording {@link Logger} for tests: every line is kept with its level, fields and message,
 * so a test can wait for what the code under test logged (e.g. a runtime's `event` field).
 */
import type { Logger } from '../../src/core/logger.js';

/** One recorded log line. */
export interface LogLine {
  readonly level: 'info' | 'warn' | 'error';
  readonly fields: Readonly<Record<string, unknown>>;
  readonly msg: string | undefined;
}

/** A logger that keeps every line in memory. */
export interface MemoryLogger extends Logger {
  /** Lines in log order. */
  readonly lines: LogLine[];
  /** The lines whose `event` field is `name` (the runtime's named happenings). */
  events(name: string): LogLine[];
}

/**
 * Creates a recording logger.
 *
 * @example
 * const logger = memoryLogger();
 * const runtime = createRuntime({ log, logger });
 * await until(() => logger.events('runtime.agent_restarted').length === 1);
 */
export function memoryLogger(): MemoryLogger {
  const lines: LogLine[] = [];
  const record =
    (level: LogLine['level']) =>
    (obj: object, msg?: string): void => {
      lines.push({ level, fields: { ...obj }, msg });
    };
  return {
    lines,
    info: record('info'),
    warn: record('warn'),
    error: record('error'),
    events: (name) => lines.filter((line) => line.fields['event'] === name),
  };
}
