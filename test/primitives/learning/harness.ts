/**
 * Test harness for a primitive: a started log, the primitive, and a runtime running it, with
 * `call(method, params)` going through the whole invoker pipeline (schema checks included).
 */
import type { JsonObject, JsonValue } from '../../../src/core/json.js';
import type { Primitive, PrimitiveComponents } from '../../../src/primitives/primitive.js';
import type { Runtime } from '../../../src/runtime/index.js';
import { memoryEventLog, type EventLog } from '../../../src/store/index.js';
import type { Projection } from '../../../src/store/projection.js';
import { startPrimitiveHost } from '../../support/primitive-harness.js';
import { expectRebuildEqualsLive, viewsOf } from '../../support/replay-check.js';

/** The answer of one call: a result, or the error's wire-safe form. */
export type CallAnswer =
  | { readonly ok: true; readonly result: JsonObject }
  | {
      readonly ok: false;
      readonly error: { code: string; message: string; details?: JsonObject };
    };

/** A running primitive. */
export interface PrimitiveHarness {
  readonly log: EventLog;
  readonly primitive: Primitive;
  readonly runtime: Runtime;
  /** Calls a seed method (`learning.addBullet`) with params; `tenantId` scopes the call. */
  call(method: string, params: JsonValue, options?: { tenantId?: string }): Promise<CallAnswer>;
  /** Calls and returns the result, failing the test on an error answer. */
  ok(method: string, params: JsonValue, options?: { tenantId?: string }): Promise<JsonObject>;
  /** Calls and returns the error, failing the test on a result. */
  fail(
    method: string,
    params: JsonValue,
    options?: { tenantId?: string },
  ): Promise<{ code: string; message: string; details?: JsonObject }>;
  /** Checks that a rebuild of each projection from the log equals the live view, byte for byte. */
  assertReplayEquals(projections: readonly Projection<unknown>[]): Promise<void>;
  /** Stops the runtime, the primitive and (unless `keepLog`) the log. */
  close(options?: { keepLog?: boolean }): Promise<void>;
}

/** Starts `make(components)` over `log` (a fresh memory log by default), started here. */
export async function startPrimitive(
  make: (components: PrimitiveComponents) => Primitive,
  options: { log?: EventLog; now?: () => number } = {},
): Promise<PrimitiveHarness> {
  const log = options.log ?? memoryEventLog();
  const host = await startPrimitiveHost({
    log: { log },
    from: 'did:example:tester',
    address: 'agent',
    idempotencyKey: (id) => `test:${id}`,
    primitives: (l) => [make(options.now === undefined ? { log: l } : { log: l, now: options.now })],
  });
  const primitive = host.primitives[0] as Primitive;
  const call = async (
    method: string,
    params: JsonValue,
    opts: { tenantId?: string } = {},
  ): Promise<CallAnswer> => {
    if (primitive.methods[method] === undefined) throw new Error(`no method ${method} on ${primitive.name}`);
    const envelope = await host.invoke(method, params, {
      extra: opts.tenantId === undefined ? {} : { tenantId: opts.tenantId },
    });
    if (envelope.kind === 'response') return { ok: true, result: envelope.data as JsonObject };
    return { ok: false, error: envelope.data as { code: string; message: string; details?: JsonObject } };
  };
  return {
    log,
    primitive,
    runtime: host.runtime,
    call,
    async ok(method, params, opts) {
      const answer = await call(method, params, opts);
      if (!answer.ok) throw new Error(`${method} failed: ${answer.error.code} ${answer.error.message}`);
      return answer.result;
    },
    async fail(method, params, opts) {
      const answer = await call(method, params, opts);
      if (answer.ok) throw new Error(`${method} answered ${JSON.stringify(answer.result)}`);
      return answer.error;
    },
    async assertReplayEquals(projections) {
      const live = await expectRebuildEqualsLive(log, viewsOf(projections, primitive.views));
      projections.forEach((projection, i) => {
        if (!live[i]?.includes('"')) throw new Error(`projection ${projection.name} is empty`);
      });
    },
    close: (opts = {}) => host.close(opts),
  };
}

/** The fixture of the seed's JSON-RPC examples. */
export interface SeedPair {
  readonly request: { readonly method: string; readonly params: JsonValue; readonly id: JsonValue };
  readonly response: { readonly result?: JsonValue; readonly error?: JsonValue };
}

/** Loads `test/fixtures/hyperspace-seed-examples/hyperspace-seed-jsonrpc-examples.json`, in file order. */
export async function seedPairs(): Promise<readonly SeedPair[]> {
  const { readFile } = await import('node:fs/promises');
  const { fileURLToPath } = await import('node:url');
  const path = fileURLToPath(
    new URL('../../fixtures/hyperspace-seed-examples/hyperspace-seed-jsonrpc-examples.json', import.meta.url),
  );
  const parsed = JSON.parse(await readFile(path, 'utf8')) as { pairs: SeedPair[] };
  return parsed.pairs;
}

/** The JSON type of a value: `null`, `array`, `object`, `string`, `number`, `boolean`. */
function jsonType(value: JsonValue): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/**
 * Every place where `actual` lacks a field of `expected` or has another JSON type (arrays:
 * each expected item's shape is checked against the first actual item, when there is one).
 */
export function shapeMismatches(expected: JsonValue, actual: JsonValue | undefined, pointer = ''): string[] {
  if (actual === undefined) return [`${pointer || '/'} is missing`];
  const te = jsonType(expected);
  const ta = jsonType(actual);
  if (te !== ta) return [`${pointer || '/'} is ${ta}, the seed has ${te}`];
  if (Array.isArray(expected) && Array.isArray(actual)) {
    const [first] = actual;
    const [model] = expected;
    return first === undefined || model === undefined ? [] : shapeMismatches(model, first, `${pointer}/0`);
  }
  if (te === 'object') {
    const e = expected as JsonObject;
    const a = actual as JsonObject;
    return Object.keys(e).flatMap((key) => shapeMismatches(e[key] as JsonValue, a[key], `${pointer}/${key}`));
  }
  return [];
}

/** A JSON value as text: strings as they are, anything else as JSON. */
export function text(value: JsonValue | undefined): string {
  return typeof value === 'string' ? value : JSON.stringify(value ?? null);
}
