/**
 * A runtime with the tool primitive and real local verbs behind the tools: `search.web`
 * (full-text search over a small in-memory corpus), `search.flaky` (fails RATE_LIMITED when
 * asked), `search.crash` (throws a plain Error). A settable clock makes durations exact.
 */
import type { Envelope } from '../../../src/core/envelope.js';
import { PlexusError, type ErrorData } from '../../../src/core/errors.js';
import type { JsonObject, JsonValue } from '../../../src/core/json.js';
import { runtimeToolCall, toolPrimitive, type ToolInit } from '../../../src/primitives/tool/index.js';
import type { Primitive } from '../../../src/primitives/primitive.js';
import type { HandlerContext, InvocationContext, Runtime } from '../../../src/runtime/index.js';
import type { EventLog } from '../../../src/store/index.js';
import { startPrimitiveHost } from '../../support/primitive-harness.js';
import { agent } from '../../runtime/helpers.js';

/** The corpus `search.web` searches. */
export const CORPUS = [
  {
    title: 'Solid-state battery breakthroughs 2026',
    url: 'https://example.org/ssb-2026',
    snippet: 'Sulfide electrolytes reach 1,000 cycles.',
  },
  {
    title: 'Battery recycling at scale',
    url: 'https://example.org/recycling',
    snippet: 'Hydrometallurgy recovers 95% of lithium.',
  },
  {
    title: 'Perovskite solar cells',
    url: 'https://example.org/perovskite',
    snippet: 'Tandem cells pass 33% efficiency.',
  },
];

/** The seed's web-search schema (§4.3). */
export const WEB_SEARCH_SCHEMA = {
  input: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
  output: { type: 'object', properties: { results: { type: 'array' } } },
};

/** What a tool harness gives a test. */
export interface ToolHarness {
  readonly log: EventLog;
  readonly runtime: Runtime;
  readonly tool: Primitive;
  /** The clock the primitive reads; `search.*` verbs advance it by `latency`. */
  readonly clock: { t: number; latency: number };
  /** Contexts the backing verbs received, in call order. */
  readonly seen: HandlerContext[];
  /** Invokes a seed method (`tool.getAnalytics`) or a verb, answering the envelope. */
  call(
    verb: string,
    data: JsonValue,
    extra?: Partial<Envelope>,
    context?: Partial<InvocationContext>,
  ): Promise<Envelope>;
  /** Invokes a verb that must succeed; answers its output. */
  ok(
    verb: string,
    data: JsonValue,
    extra?: Partial<Envelope>,
    context?: Partial<InvocationContext>,
  ): Promise<JsonObject>;
  /** Invokes a verb that must fail; answers the error data. */
  fail(verb: string, data: JsonValue, extra?: Partial<Envelope>): Promise<ErrorData>;
  /** Stops the runtime, the primitive and (unless `keepLog`) the log. */
  close(keepLog?: boolean): Promise<void>;
}

/** Starts the log (when not started), the tool primitive and a runtime with the backing agents. */
export async function startToolHarness(log: EventLog, init: ToolInit = {}): Promise<ToolHarness> {
  const clock = { t: Date.UTC(2026, 2, 18, 14), latency: 120 };
  const seen: HandlerContext[] = [];
  const search = agent('search', {
    'search.web': (input, ctx) => {
      seen.push(ctx);
      clock.t += clock.latency;
      const words = (input as { query: string }).query
        .toLowerCase()
        .split(/\W+/)
        .filter((w) => w.length > 2);
      const results = CORPUS.filter((d) => words.some((w) => d.title.toLowerCase().includes(w)));
      return { results };
    },
    'search.flaky': (input, ctx) => {
      seen.push(ctx);
      clock.t += clock.latency;
      if ((input as { fail?: boolean }).fail === true) {
        throw new PlexusError('RATE_LIMITED', 'the search backend allows 1 query a second', {
          details: { retryAfterMs: 1000 },
        });
      }
      return { results: [] };
    },
    'search.crash': () => {
      clock.t += clock.latency;
      throw new Error('index file is corrupt');
    },
  });
  const host = await startPrimitiveHost({
    log: { log },
    from: 'did:example:caller',
    address: 'capability',
    agents: [search],
    primitives: (l, runtime) => [
      toolPrimitive(
        { log: l, now: () => clock.t, invoke: runtimeToolCall(runtime) },
        { peerId: 'did:key:z6MkNode', ...init },
      ),
    ],
  });
  const call = (
    method: string,
    data: JsonValue,
    extra: Partial<Envelope> = {},
    context: Partial<InvocationContext> = {},
  ): Promise<Envelope> => host.invoke(method, data, { extra, context });
  return {
    log,
    runtime: host.runtime,
    tool: host.primitives[0] as Primitive,
    clock,
    seen,
    call,
    ok: (verb, data, extra = {}, context = {}) => host.ok(verb, data, { extra, context }),
    fail: (verb, data, extra = {}) => host.fail(verb, data, { extra }),
    close: (keepLog = false) => host.close({ keepLog }),
  };
}

/** Registers the seed's `web-search` tool backed by `search.web`. */
export async function registerWebSearch(h: ToolHarness, extra: JsonObject = {}): Promise<string> {
  const out = await h.ok('tool.register', {
    name: 'web-search',
    description: 'Full-text web search with snippet extraction',
    schema: WEB_SEARCH_SCHEMA,
    capabilities: ['search', 'scrape', 'summarize'],
    verb: 'search.web',
    geo: 'us-east',
    reputation: 0.94,
    ...extra,
  });
  return out['toolId'] as string;
}
