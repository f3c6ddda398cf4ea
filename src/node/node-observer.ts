/**
 * The node's runtime observer: what the runtime reports as notable goes to the node's
 * injected logger. A handler that crashed (threw something other than a PlexusError) is an
 * error with its stack trace — the caller only gets `INTERNAL` with the message, never the
 * stack; failures of the runtime's own work are warnings; the rest (restarts, requeued jobs)
 * is info. Spans and counters are not logged.
 */
import { noopObserver, type Observer, type ObserverAttributes } from '../runtime/index.js';
import type { Logger } from '../core/logger.js';

/** Runtime events logged as errors, with what the log line says. */
const ERRORS: Readonly<Record<string, string>> = {
  'runtime.handler_crashed': 'a handler crashed; its caller got INTERNAL',
  'runtime.contained_rejection': 'a handler left a promise rejection behind; its agent is restarted',
};

/** An {@link Observer} that logs the runtime's events on `logger`. */
export function loggingObserver(logger: Logger): Observer {
  return {
    span: (name, attributes) => noopObserver.span(name, attributes),
    count: () => undefined,
    event: (name: string, attributes: ObserverAttributes = {}) => {
      const error = ERRORS[name];
      if (error !== undefined) logger.error({ ...attributes }, error);
      else if (name.endsWith('_failed') || name.endsWith('_error')) logger.warn({ ...attributes }, name);
      else logger.info({ ...attributes }, name);
    },
  };
}
