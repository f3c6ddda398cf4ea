/**
 * The log lines the runtime's observer carries (seed 002 §7.3, seed 004 Req 12.3): one per
 * invocation when its {@link INVOCATION_SPAN} ends, one per routing decision when its
 * {@link EXECUTE_SPAN} ends. Every other span and every counter is ignored. Like the metrics
 * adapter, it is structural: the runtime's `Observer` shape, no import of the runtime.
 *
 * An invocation line: `event: "invocation"`, `verb`, `trace_id`, `span_id`, `tenant_id`,
 * `user_id` (redacted by the logger unless user ids are logged), `duration_ms`, `status`
 * (`success` or the error code), `effects_executed`, `cache_hit`, `face`, `mode`, and the
 * error's message when it failed. A routing line: `event: "routing"`, `verb`, `job`, `path`
 * (`local`, `remote`, `broadcast`), `agents`, `latency_ms`, `outcome`, the trace ids.
 */
import type { PlexusError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { EXECUTE_SPAN, INVOCATION_SPAN } from '../span-names.js';
import { traceIdsFor } from './trace-ids.js';

type Attributes = Readonly<Record<string, string | number | boolean>>;
type EndAttributes = Readonly<Record<string, string | number | boolean | readonly string[]>>;

/** A span as the runtime's observer sees it. */
export interface LoggedSpan {
  end(error?: PlexusError, attributes?: EndAttributes): void;
}

/** The runtime-facing side: the shape of the runtime's `Observer`. */
export interface LoggingObserver {
  span(name: string, attributes?: Attributes): LoggedSpan;
  count(name: string, attributes?: Attributes, value?: number): void;
}

/** The `status` of a successful invocation (as the metrics label it). */
const SUCCESS = 'success';

const NOOP_SPAN: LoggedSpan = { end: () => undefined };

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

const milliseconds = (started: number): number => Math.round((performance.now() - started) * 1000) / 1000;

/** The spans the log reads (OBS-62): every other span is ignored. */
export const LOGGED_SPANS: readonly string[] = [INVOCATION_SPAN, EXECUTE_SPAN];

/**
 * An observer writing the invocation and routing lines to `logger` (at `info`).
 *
 * @example
 * const runtime = createRuntime({ log, observer: invocationLogObserver(logger) });
 */
export function invocationLogObserver(logger: Logger): LoggingObserver {
  const invocation = (attributes: Attributes): LoggedSpan => {
    const started = performance.now();
    let ended = false;
    return {
      end(error, end) {
        if (ended) return;
        ended = true;
        const ids = traceIdsFor(text(attributes['traceparent']) ?? undefined);
        const effects = end?.['effects'];
        logger.info(
          {
            event: 'invocation',
            verb: text(attributes['verb']),
            trace_id: ids?.traceId ?? null,
            span_id: ids?.spanId ?? null,
            tenant_id: text(attributes['tenant']),
            user_id: text(attributes['user']),
            duration_ms: milliseconds(started),
            status: error === undefined ? SUCCESS : error.code,
            effects_executed: Array.isArray(effects) ? effects : [],
            cache_hit: end?.['cache_hit'] === true,
            face: text(attributes['face']),
            mode: text(attributes['mode']),
            ...(error === undefined ? {} : { error: error.message }),
          },
          'invocation',
        );
      },
    };
  };

  const routing = (attributes: Attributes): LoggedSpan => {
    const started = performance.now();
    let ended = false;
    return {
      end(error) {
        if (ended) return;
        ended = true;
        const ids = traceIdsFor(text(attributes['traceparent']) ?? undefined);
        logger.info(
          {
            event: 'routing',
            verb: text(attributes['verb']),
            job: text(attributes['job']),
            path: text(attributes['route']),
            agents: typeof attributes['agents'] === 'number' ? attributes['agents'] : null,
            latency_ms: milliseconds(started),
            outcome: error === undefined ? SUCCESS : error.code,
            trace_id: ids?.traceId ?? null,
            span_id: ids?.spanId ?? null,
          },
          'routing decision',
        );
      },
    };
  };

  return {
    span(name, attributes = {}) {
      if (name === INVOCATION_SPAN) return invocation(attributes);
      if (name === EXECUTE_SPAN) return routing(attributes);
      return NOOP_SPAN;
    },
    count: () => undefined,
  };
}
