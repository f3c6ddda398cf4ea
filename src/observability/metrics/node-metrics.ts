/**
 * The Prometheus meters of one node (issue 16 item 2; docs/observability.md): one prom-client
 * `Registry` per node (never the global one: several nodes share a test process), the eight
 * meters of seed 002 §7.2 by their names and labels, and the node's own health meters. The
 * two meters with a series per verb × tenant are kept in tables rendered straight to text
 * (`series-table.ts`, OBS-51), so a scrape of a node with many verbs and tenants stays fast.
 *
 * The numbers come from seams that already exist: the runtime's observer (an
 * {@link INVOCATION_SPAN} per invocation), the event log's appends and the admission gate
 * (wrapped by the node), the capability authorizer's and the charges effect's counts. Nothing is done per request beyond
 * prom-client's own label lookup, except keeping one start time per open invocation.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { PlexusError } from '../../core/errors.js';
import {
  BILLING_CHARGE_COUNT,
  CAPABILITY_CHECK_COUNT,
  FALLBACK_COUNT,
  INVOCATION_SPAN,
} from '../span-names.js';
import { ATTR_LLM_MODEL, ATTR_LLM_TOKENS_INPUT, ATTR_LLM_TOKENS_OUTPUT } from '../tracing/span-attributes.js';
import { labelCap } from './label-cap.js';
import { counterTable, histogramTable } from './series-table.js';

/** The spans the meters read (OBS-62): every other span is ignored. */
export const METERED_SPANS: readonly string[] = [INVOCATION_SPAN];

/** Options of {@link nodeMetrics}. */
export interface NodeMetricsInit {
  /** The most distinct verbs labelled; later ones count as `other`. @default 200 */
  readonly maxVerbs?: number;
  /** The most distinct tenants labelled; later ones count as `other`. @default 200 */
  readonly maxTenants?: number;
}

/** The default caps of the `verb` and `tenant` labels. */
export const DEFAULT_LABEL_CAP = 200;

/** The label value of a request without a tenant. */
export const NO_TENANT = 'none';

/** The `status` of a successful invocation; a failed one has its error code. */
export const SUCCESS_STATUS = 'success';

/** Durations, seconds: 1 ms to 60 s. */
const SECONDS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** Events per log commit. */
const BATCH = [1, 2, 4, 8, 16, 32, 64, 128, 256];

type Attributes = Readonly<Record<string, string | number | boolean>>;

/** What an invocation span ends with (the runtime's end attributes: `cache_hit`, `effects`). */
type EndAttributes = Readonly<Record<string, string | number | boolean | readonly string[]>>;

/** A span as the runtime's observer sees it. */
export interface MeteredSpan {
  end(error?: PlexusError, attributes?: EndAttributes): void;
  set?(attributes: Attributes): void;
}

/** The runtime-facing side: the shape of the runtime's `Observer` (structural, no import). */
export interface MetricsObserver {
  span(name: string, attributes?: Attributes): MeteredSpan;
  count(name: string, attributes?: Attributes, value?: number): void;
}

/** The node-wide figures of {@link NodeMetrics.overview}. */
export interface MetricsOverview {
  /** Invocations ended, and those that ended in an error. */
  readonly invocations: number;
  readonly errors: number;
  /** Their durations: count, sum and the cumulative count per upper bound (the last `Infinity`). */
  readonly duration: {
    readonly count: number;
    readonly sumSeconds: number;
    readonly buckets: readonly (readonly [number, number])[];
  };
  /** Requests shed so far. */
  readonly shed: number;
  /** The in-flight gauges, read now. */
  readonly invocationsInFlight: number;
  readonly requestsInFlight: number;
}

/** The meters of one node. */
export interface NodeMetrics {
  /** The registry of the node's low-cardinality meters (the invocation meters are kept apart, OBS-51). */
  readonly registry: Registry;
  /** Hand this to the runtime as its observer. */
  readonly observer: MetricsObserver;
  /** One event-log commit of `events` events that took `seconds`. */
  logAppended(events: number, seconds: number): void;
  /** One request shed by the admission gate. */
  shed(): void;
  /** Reads `read()` as the `plexus_requests_in_flight` gauge at each scrape. */
  inFlightFrom(read: () => number): void;
  /** One MCP tool call of `tool` that took `seconds` and ended `status` (`success` or an error code). */
  mcpToolCall(tool: string, status: string, seconds: number): void;
  /** The text of a scrape. */
  render(): Promise<string>;
  /** The node-wide figures the dashboard charts (every verb and tenant added up). */
  overview(): MetricsOverview;
  /** The content type of {@link NodeMetrics.render}'s text. */
  readonly contentType: string;
}

const NOOP_SPAN: MeteredSpan = { end: () => undefined };

function positiveWhole(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`metrics.${name} must be a whole number ≥ 1, got ${String(value)}`);
  }
  return value;
}

/**
 * Creates the meters of one node, on a registry of its own.
 *
 * @throws RangeError when a cap is not a whole number ≥ 1.
 * @example
 * const metrics = nodeMetrics({ maxVerbs: 200 });
 * const runtime = createRuntime({ log, observer: metrics.observer });
 * await metrics.render(); // '# HELP agentese_invocations_total …'
 */
export function nodeMetrics(init: NodeMetricsInit = {}): NodeMetrics {
  const verbs = labelCap(positiveWhole('maxVerbs', init.maxVerbs ?? DEFAULT_LABEL_CAP));
  const tenants = labelCap(positiveWhole('maxTenants', init.maxTenants ?? DEFAULT_LABEL_CAP));
  // Labels whose values come from verb specs, handlers or configuration: capped like verbs.
  const resources = labelCap(DEFAULT_LABEL_CAP);
  const scopes = labelCap(DEFAULT_LABEL_CAP);
  const meters = labelCap(DEFAULT_LABEL_CAP);
  const models = labelCap(DEFAULT_LABEL_CAP);
  const registry = new Registry();
  const registers = [registry];

  // ---- seed 002 §7.2 ----
  // The two meters with a series per verb × tenant: rendered from tables of their own (OBS-51).
  const invocations = counterTable({
    name: 'agentese_invocations_total',
    help: 'Invocations by verb, tenant and status (success, or the error code).',
    labelNames: ['verb', 'tenant', 'status'],
  });
  const duration = histogramTable(
    {
      name: 'agentese_invocation_duration_seconds',
      help: 'Time from the runtime taking a request to its answer (sync) or the end of its job (async).',
      labelNames: ['verb', 'tenant'],
    },
    SECONDS,
  );
  const effectOperations = new Counter({
    name: 'agentese_effect_operations_total',
    help: 'Declared effects (effect and resource) of the invocations that completed, each counted once per invocation.',
    labelNames: ['effect', 'resource'] as const,
    registers,
  });
  const capabilityChecks = new Counter({
    name: 'agentese_capability_checks_total',
    help: 'Capability checks of requests by scope (named by a refusal, else the first the verb declares, else verb) and result (allowed, denied, forced).',
    labelNames: ['scope', 'result'] as const,
    registers,
  });
  const fallbacks = new Counter({
    name: 'agentese_transport_fallbacks_total',
    help: 'Fallback steps tried by the transport left (a target scheme) and the one tried (a scheme, local-cache, queue-for-sync or error).',
    labelNames: ['from_transport', 'to_transport'] as const,
    registers,
  });
  const cacheOperations = new Counter({
    name: 'agentese_cache_operations_total',
    help: 'Answer-cache lookups by verb: hit = answered with an earlier identical request (idempotency key), miss = run.',
    labelNames: ['verb', 'hit_miss'] as const,
    registers,
  });
  const llmTokens = new Counter({
    name: 'agentese_llm_tokens_total',
    help: 'LLM tokens handlers reported (ctx.telemetry) by model and direction (input, output).',
    labelNames: ['model', 'direction'] as const,
    registers,
  });
  const billingCharges = new Counter({
    name: 'agentese_billing_charges_total',
    help: 'Charges debited by the charges effect, by meter and tenant (a count of charges, not of micro-units).',
    labelNames: ['meter', 'tenant'] as const,
    registers,
  });

  // ---- the node's health ----
  let open = 0;
  new Gauge({
    name: 'plexus_invocations_in_flight',
    help: 'Invocations the runtime has taken and not yet answered or finished.',
    registers,
    collect() {
      this.set(open);
    },
  });
  let inFlight: (() => number) | undefined;
  new Gauge({
    name: 'plexus_requests_in_flight',
    help: 'Requests (and async jobs they started) holding an admission slot.',
    registers,
    collect() {
      if (inFlight !== undefined) this.set(inFlight());
    },
  });
  let shedCount = 0;
  const shedTotal = new Counter({
    name: 'plexus_shed_requests_total',
    help: 'Requests refused by load shedding (429 / RATE_LIMITED).',
    registers,
  });
  const appendSeconds = new Histogram({
    name: 'plexus_event_log_append_seconds',
    help: 'Time of one event-log append (one commit), seconds.',
    buckets: SECONDS,
    registers,
  });
  const appendEvents = new Histogram({
    name: 'plexus_event_log_append_events',
    help: 'Events in one event-log append (commit batch size).',
    buckets: BATCH,
    registers,
  });
  const toolCalls = new Counter({
    name: 'plexus_mcp_tool_calls_total',
    help: 'MCP tool calls by tool and status (success, or the error code).',
    labelNames: ['tool', 'status'] as const,
    registers,
  });
  const toolSeconds = new Histogram({
    name: 'plexus_mcp_tool_call_duration_seconds',
    help: 'Time of one MCP tool call, seconds.',
    labelNames: ['tool'] as const,
    buckets: SECONDS,
    registers,
  });

  const tenantLabel = (value: string | number | boolean | undefined): string =>
    value === undefined ? NO_TENANT : tenants.of(String(value));

  const invocationSpan = (attributes: Attributes | undefined): MeteredSpan => {
    const started = performance.now();
    open++;
    let ended = false;
    let llm: { model?: string; input?: number; output?: number } | undefined;
    return {
      set(more) {
        if (ended) return;
        const model = more[ATTR_LLM_MODEL];
        const input = more[ATTR_LLM_TOKENS_INPUT];
        const output = more[ATTR_LLM_TOKENS_OUTPUT];
        if (model === undefined && input === undefined && output === undefined) return;
        llm ??= {};
        if (typeof model === 'string') llm.model = model; // a later report replaces an earlier one
        if (typeof input === 'number') llm.input = input;
        if (typeof output === 'number') llm.output = output;
      },
      end(error, end) {
        if (ended) return;
        ended = true;
        open--;
        const verb = verbs.of(String(attributes?.['verb'] ?? OTHER));
        const tenant = tenantLabel(attributes?.['tenant']);
        const seconds = (performance.now() - started) / 1000;
        invocations.inc([verb, tenant, error === undefined ? SUCCESS_STATUS : error.code]);
        duration.observe([verb, tenant], seconds);
        const hit = end?.['cache_hit'];
        if (typeof hit === 'boolean') cacheOperations.inc({ verb, hit_miss: hit ? 'hit' : 'miss' });
        const effects = end?.['effects'];
        if (Array.isArray(effects)) {
          for (const item of effects as readonly string[]) {
            const colon = item.indexOf(':');
            effectOperations.inc({
              effect: colon < 0 ? item : item.slice(0, colon),
              resource: resources.of(colon < 0 ? '' : item.slice(colon + 1)),
            });
          }
        }
        if (llm !== undefined) {
          const model = models.of(llm.model ?? 'unknown');
          if (llm.input !== undefined && llm.input > 0)
            llmTokens.inc({ model, direction: 'input' }, llm.input);
          if (llm.output !== undefined && llm.output > 0)
            llmTokens.inc({ model, direction: 'output' }, llm.output);
        }
      },
    };
  };

  const counted = (name: string, attributes: Attributes): void => {
    if (name === FALLBACK_COUNT) {
      fallbacks.inc({
        from_transport: String(attributes['from_transport'] ?? OTHER),
        to_transport: String(attributes['to_transport'] ?? OTHER),
      });
    } else if (name === CAPABILITY_CHECK_COUNT) {
      capabilityChecks.inc({
        scope: scopes.of(String(attributes['scope'] ?? OTHER)),
        result: String(attributes['result'] ?? OTHER),
      });
    } else if (name === BILLING_CHARGE_COUNT) {
      billingCharges.inc({
        meter: meters.of(String(attributes['meter'] ?? OTHER)),
        tenant: tenantLabel(attributes['tenant']),
      });
    }
  };

  return {
    registry,
    observer: {
      span: (name, attributes) => (name === INVOCATION_SPAN ? invocationSpan(attributes) : NOOP_SPAN),
      count: (name, attributes) => {
        if (attributes !== undefined) counted(name, attributes);
      },
    },
    logAppended(events, seconds) {
      appendSeconds.observe(seconds);
      appendEvents.observe(events);
    },
    shed: () => {
      shedCount++;
      shedTotal.inc();
    },
    inFlightFrom(read) {
      inFlight = read;
    },
    mcpToolCall(tool, status, seconds) {
      const label = verbs.of(tool);
      toolCalls.inc({ tool: label, status });
      toolSeconds.observe({ tool: label }, seconds);
    },
    async render() {
      const out: string[] = [];
      invocations.render(out);
      out.push('');
      duration.render(out);
      out.push('', await registry.metrics());
      return out.join('\n');
    },
    overview() {
      const totals = duration.total();
      return {
        invocations: invocations.total(),
        errors: invocations.total({ label: 'status', value: SUCCESS_STATUS }),
        duration: {
          count: totals.count,
          sumSeconds: totals.sum,
          buckets: [...SECONDS, Infinity].map((le, i): readonly [number, number] => [
            le,
            totals.buckets[i] ?? 0,
          ]),
        },
        shed: shedCount,
        invocationsInFlight: open,
        requestsInFlight: inFlight === undefined ? 0 : inFlight(),
      };
    },
    contentType: registry.contentType,
  };
}

const OTHER = 'other';
