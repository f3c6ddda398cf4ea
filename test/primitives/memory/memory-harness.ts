/**
 * Test harness of the memory primitive: a runtime over a started log (memory or SQLite) with
 * the primitive registered, a `call` that sends a seed JSON-RPC method through the invoker
 * like the WebSocket face does, and a replay check of the exported projections.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { PlexusError, type PlexusErrorCode } from '../../../src/core/errors.js';
import type { JsonObject, JsonValue } from '../../../src/core/json.js';
import {
  MEMORY_PROJECTIONS,
  memoryPrimitive,
  type MemoryComponents,
  type MemoryInit,
  type MemoryPrimitive,
} from '../../../src/primitives/memory/index.js';
import type { Runtime } from '../../../src/runtime/index.js';
import type { EventLog } from '../../../src/store/index.js';
import { startPrimitiveHost } from '../../support/primitive-harness.js';
import { expectRebuildEqualsLive, viewsOf } from '../../support/replay-check.js';

/** An answer: a result or a Plexus error. */
export type Answer =
  | { readonly ok: true; readonly result: JsonObject }
  | {
      readonly ok: false;
      readonly code: PlexusErrorCode;
      readonly message: string;
      readonly details?: JsonObject;
    };

/** A running runtime with the memory primitive. */
export interface MemoryCore {
  readonly log: EventLog;
  readonly runtime: Runtime;
  readonly memory: MemoryPrimitive;
  readonly clock: { now: number };
  call(method: string, params: object, tenant?: string): Promise<Answer>;
  ok(method: string, params: object, tenant?: string): Promise<JsonObject>;
  fail(method: string, params: object, tenant?: string): Promise<Extract<Answer, { ok: false }>>;
  expectReplayMatches(): Promise<void>;
  /** Stops runtime and primitive, keeps the log running (for a restart over it). */
  stopPrimitive(): Promise<void>;
  close(): Promise<void>;
}

/** Options of {@link startMemoryCore}. */
export interface MemoryCoreOptions {
  readonly backend?: 'memory' | 'sqlite';
  /** An already started log to use (not stopped at close). */
  readonly log?: EventLog;
  readonly init?: MemoryInit;
  readonly components?: Partial<Omit<MemoryComponents, 'log'>>;
}

/** Starts a log, the memory primitive and a runtime. */
export async function startMemoryCore(options: MemoryCoreOptions = {}): Promise<MemoryCore> {
  const clock = { now: Date.UTC(2026, 2, 17, 8, 30, 0) };
  const host = await startPrimitiveHost({
    log:
      options.log !== undefined
        ? { log: options.log, started: true }
        : { backend: options.backend ?? 'memory' },
    from: 'did:example:client',
    address: 'agent',
    primitives: (log) => [
      memoryPrimitive({ log, now: () => clock.now, ...options.components }, options.init),
    ],
  });
  const memory = host.primitives[0] as MemoryPrimitive;
  const call = async (method: string, params: object, tenant?: string): Promise<Answer> => {
    const envelope = await host.invoke(method, params as JsonValue, {
      extra: tenant === undefined ? {} : { tenantId: tenant },
    });
    if (envelope.kind === 'error') {
      const data = envelope.data as { code: PlexusErrorCode; message: string; details?: JsonObject };
      return { ok: false, ...data };
    }
    return { ok: true, result: envelope.data as JsonObject };
  };
  return {
    log: host.log,
    runtime: host.runtime,
    memory,
    clock,
    call,
    async ok(method, params, tenant) {
      const answer = await call(method, params, tenant);
      if (!answer.ok) throw new PlexusError(answer.code, `${method} failed: ${answer.message}`);
      return answer.result;
    },
    async fail(method, params, tenant) {
      const answer = await call(method, params, tenant);
      if (answer.ok) throw new Error(`${method} succeeded unexpectedly: ${JSON.stringify(answer.result)}`);
      return answer;
    },
    async expectReplayMatches() {
      expect(MEMORY_PROJECTIONS.length).toBeGreaterThan(0);
      await expectRebuildEqualsLive(host.log, viewsOf(MEMORY_PROJECTIONS, memory.views));
    },
    stopPrimitive: () => host.stopPrimitives(),
    close: () => host.close(),
  };
}

/** The JSON type of a value. */
export function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** Checks `actual` has every field of `expected` with the same JSON type, recursively into the first array item. */
export function expectSameShape(actual: JsonObject, expected: JsonObject, path = ''): void {
  for (const [key, value] of Object.entries(expected)) {
    expect(Object.hasOwn(actual, key), `field ${path}${key}`).toBe(true);
    const got = actual[key];
    expect(jsonType(got), `type of ${path}${key}`).toBe(jsonType(value));
    if (Array.isArray(value) && Array.isArray(got) && jsonType(value[0]) === 'object') {
      expect(got.length, `${path}${key} has items`).toBeGreaterThan(0);
      expectSameShape(got[0] as JsonObject, value[0] as JsonObject, `${path}${key}[0].`);
    }
  }
}

/** One request/response pair of the seed fixture. */
export interface SeedPair {
  readonly request: { readonly method: string; readonly params: JsonObject; readonly id: number };
  readonly response: { readonly result?: JsonObject };
}

/** The seed's JSON-RPC examples of the memory primitive, in file order. */
export function memorySeedPairs(): SeedPair[] {
  const text = readFileSync(
    new URL('../../fixtures/hyperspace-seed-examples/hyperspace-seed-jsonrpc-examples.json', import.meta.url),
    'utf8',
  );
  return (JSON.parse(text) as { pairs: SeedPair[] }).pairs.filter((p) =>
    p.request.method.startsWith('memory.'),
  );
}
