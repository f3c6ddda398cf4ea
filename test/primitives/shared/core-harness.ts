/**
 * Test harness of the state, guard and recursive primitives: a runtime over a started log
 * (memory or SQLite) with the three primitives registered, a settable clock, a `call` that
 * sends a seed JSON-RPC method through the runtime's invoker like the WebSocket face does
 * (method → verb, a fresh idempotency key per call), and a replay check of every projection.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { PlexusError, type PlexusErrorCode } from '../../../src/core/errors.js';
import type { JsonObject, JsonValue } from '../../../src/core/json.js';
import { guardPrimitive, type GuardInit } from '../../../src/primitives/guard/index.js';
import type { Primitive } from '../../../src/primitives/primitive.js';
import { recursivePrimitive, type RecursiveInit } from '../../../src/primitives/recursive/index.js';
import { statePrimitive, type StateInit, type StatePrimitive } from '../../../src/primitives/state/index.js';
import type { Runtime } from '../../../src/runtime/index.js';
import type { EventLog } from '../../../src/store/index.js';
import { startPrimitiveHost } from '../../support/primitive-harness.js';
import { expectRebuildEqualsLive } from '../../support/replay-check.js';

/** Options of {@link startCore}. */
export interface CoreOptions {
  readonly backend?: 'memory' | 'sqlite';
  readonly state?: StateInit;
  readonly guard?: GuardInit;
  readonly recursive?: RecursiveInit;
  /** Start time of the clock, Unix ms. */
  readonly time?: number;
  /** A directory for the SQLite log that outlives the core (not removed at close). */
  readonly dir?: string;
}

/** An answer: a result or a Plexus error (code, message, details). */
export type Answer =
  | { readonly ok: true; readonly result: JsonObject }
  | {
      readonly ok: false;
      readonly code: PlexusErrorCode;
      readonly message: string;
      readonly details?: JsonObject;
    };

/** A running runtime with the three primitives. */
export interface Core {
  readonly log: EventLog;
  readonly runtime: Runtime;
  readonly state: StatePrimitive;
  readonly guard: Primitive;
  readonly recursive: Primitive;
  readonly primitives: readonly Primitive[];
  /** The clock the primitives read; move it with `clock.now = …`. */
  readonly clock: { now: number };
  /** Sends `method` (`state.createSession`) with `params` and answers the result or error. */
  call(method: string, params: object, options?: { readonly tenant?: string }): Promise<Answer>;
  /** Like `call`, but throws unless it succeeded. */
  ok(method: string, params: object, options?: { readonly tenant?: string }): Promise<JsonObject>;
  /** Like `call`, but throws unless it failed; answers the error. */
  fail(
    method: string,
    params: object,
    options?: { readonly tenant?: string },
  ): Promise<Extract<Answer, { ok: false }>>;
  /** Checks every projection rebuilt from the log equals its live view. */
  expectReplayMatches(): Promise<void>;
  close(): Promise<void>;
}

/** Starts a log, the three primitives and a runtime. */
export async function startCore(options: CoreOptions = {}): Promise<Core> {
  const clock = { now: options.time ?? Date.UTC(2026, 2, 18, 12, 0, 0) };
  const now = (): number => clock.now;
  const host = await startPrimitiveHost({
    log: options.dir !== undefined ? { dir: options.dir } : { backend: options.backend ?? 'memory' },
    from: 'did:example:client',
    address: 'agent',
    primitives: (log) => {
      const state = statePrimitive({ log, now }, options.state);
      const guard = guardPrimitive({ log, now, sessions: state.sessions }, options.guard);
      const recursive = recursivePrimitive({ log, now, sessions: state.sessions }, options.recursive);
      return [state, guard, recursive];
    },
  });
  const [state, guard, recursive] = host.primitives as [StatePrimitive, Primitive, Primitive];
  const call = async (
    method: string,
    params: object,
    o: { readonly tenant?: string } = {},
  ): Promise<Answer> => {
    const envelope = await host.invoke(method, params as JsonValue, {
      extra: o.tenant === undefined ? {} : { tenantId: o.tenant },
    });
    if (envelope.kind === 'error') {
      const data = envelope.data as { code: PlexusErrorCode; message: string; details?: JsonObject };
      return data.details === undefined
        ? { ok: false, code: data.code, message: data.message }
        : { ok: false, code: data.code, message: data.message, details: data.details };
    }
    return { ok: true, result: envelope.data as JsonObject };
  };

  return {
    log: host.log,
    runtime: host.runtime,
    state,
    guard,
    recursive,
    primitives: host.primitives,
    clock,
    call,
    async ok(method, params, o) {
      const answer = await call(method, params, o);
      if (!answer.ok) throw new PlexusError(answer.code, `${method} failed: ${answer.message}`);
      return answer.result;
    },
    async fail(method, params, o) {
      const answer = await call(method, params, o);
      if (answer.ok) throw new Error(`${method} succeeded unexpectedly: ${JSON.stringify(answer.result)}`);
      return answer;
    },
    async expectReplayMatches() {
      for (const p of host.primitives) await expectRebuildEqualsLive(host.log, p.views);
    },
    close: () => host.close(),
  };
}

/** The JSON type of a value, as the fixture checks compare them. */
export function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** Checks `actual` has every field of `expected` with the same JSON type (values may differ). */
export function expectSameShape(actual: JsonObject, expected: JsonObject): void {
  for (const [key, value] of Object.entries(expected)) {
    expect(Object.hasOwn(actual, key), `field ${key}`).toBe(true);
    expect(jsonType(actual[key]), `type of ${key}`).toBe(jsonType(value));
  }
}

/** One request/response pair of the seed fixture. */
export interface SeedPair {
  readonly request: { readonly method: string; readonly params: JsonObject; readonly id: number };
  readonly response: {
    readonly result?: JsonObject;
    readonly error?: { readonly code: number; readonly message: string; readonly data?: JsonObject };
  };
}

/** The seed's JSON-RPC examples whose method belongs to `primitive`, in file order. */
export function seedPairs(primitive: string): SeedPair[] {
  const text = readFileSync(
    new URL('../../fixtures/hyperspace-seed-examples/hyperspace-seed-jsonrpc-examples.json', import.meta.url),
    'utf8',
  );
  const all = (JSON.parse(text) as { pairs: SeedPair[] }).pairs;
  return all.filter((p) => p.request.method.startsWith(`${primitive}.`));
}
