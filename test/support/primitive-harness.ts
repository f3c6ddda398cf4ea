/**
 * The host every primitive test runs on: an event log (given, or a fresh memory or SQLite
 * one), the primitives started over it, and a runtime with their agents (plus any others),
 * with `invoke(method, data)` sending a seed method (`state.createSession`) or a verb through
 * the whole invoker pipeline, a fresh idempotency key per call, like the WebSocket face.
 */
import { randomUUID } from 'node:crypto';
import type { Envelope } from '../../src/core/envelope.js';
import type { ErrorData } from '../../src/core/errors.js';
import type { JsonObject, JsonValue } from '../../src/core/json.js';
import type { Primitive } from '../../src/primitives/primitive.js';
import {
  createRuntime,
  type AgentDefinition,
  type InvocationContext,
  type Runtime,
} from '../../src/runtime/index.js';
import { memoryEventLog, sqliteEventLog, type EventLog } from '../../src/store/index.js';
import { tempDir } from '../runtime/helpers.js';

/** Where the host's log comes from. */
export type HostLog =
  /** A fresh memory log, or a SQLite log in a temporary directory (removed at close). */
  | { readonly backend: 'memory' | 'sqlite' }
  /** A SQLite log in `dir`, which outlives the host. */
  | { readonly dir: string }
  /** This log; `started` = already started by the test (then neither started nor stopped here). */
  | { readonly log: EventLog; readonly started?: boolean };

/** Options of {@link startPrimitiveHost}. */
export interface PrimitiveHostInit {
  /** @default { backend: 'memory' } */
  readonly log?: HostLog;
  /** Makes the primitives over the log; `runtime()` answers the host's runtime once it exists. */
  readonly primitives: (log: EventLog, runtime: () => Runtime) => readonly Primitive[];
  /** Other agents of the runtime (e.g. verbs a primitive calls). */
  readonly agents?: readonly AgentDefinition[];
  /** The caller of every request. */
  readonly from: string;
  /** `agent`: requests go `to` the primitive by name (an unknown method throws); `capability`: to `capability:<verb>` (an unknown method is taken as a verb). */
  readonly address: 'agent' | 'capability';
  /** The idempotency key of a call. @default a random UUID */
  readonly idempotencyKey?: (requestId: string) => string;
}

/** Options of one call. */
export interface CallOptions {
  /** Fields of the request envelope (e.g. `tenantId`). */
  readonly extra?: Partial<Envelope>;
  /** Fields of the invocation context (they win over the default idempotency key). */
  readonly context?: Partial<InvocationContext>;
}

/** A running host. */
export interface PrimitiveHost {
  readonly log: EventLog;
  readonly runtime: Runtime;
  readonly primitives: readonly Primitive[];
  /** Sends `method` with `data` and answers the answer envelope. */
  invoke(method: string, data: JsonValue, options?: CallOptions): Promise<Envelope>;
  /** Like `invoke`, but throws unless it succeeded; answers the result. */
  ok(method: string, data: JsonValue, options?: CallOptions): Promise<JsonObject>;
  /** Like `invoke`, but throws unless it failed; answers the error data. */
  fail(method: string, data: JsonValue, options?: CallOptions): Promise<ErrorData>;
  /** Stops the runtime (no drain) and the primitives; the log keeps running. Safe twice. */
  stopPrimitives(): Promise<void>;
  /** Stops everything; the log too unless `keepLog` or it was started by the test. */
  close(options?: { readonly keepLog?: boolean }): Promise<void>;
}

/** Starts the log, the primitives and a runtime with their agents. */
export async function startPrimitiveHost(init: PrimitiveHostInit): Promise<PrimitiveHost> {
  const source = init.log ?? { backend: 'memory' };
  let removeDir: () => Promise<void> = () => Promise.resolve();
  let log: EventLog;
  let ownLog = true;
  if ('log' in source) {
    log = source.log;
    ownLog = source.started !== true;
  } else if ('dir' in source) {
    log = sqliteEventLog({ dir: source.dir });
  } else if (source.backend === 'sqlite') {
    const dir = await tempDir();
    log = sqliteEventLog({ dir: dir.dir });
    removeDir = dir.remove;
  } else {
    log = memoryEventLog();
  }
  if (ownLog) await log.start();
  const ref: { runtime?: Runtime } = {};
  const primitives = init.primitives(log, () => {
    if (ref.runtime === undefined) throw new Error('the runtime is not created yet');
    return ref.runtime;
  });
  for (const p of primitives) await p.start();
  const runtime = createRuntime({ log, agents: [...primitives.map((p) => p.agent), ...(init.agents ?? [])] });
  ref.runtime = runtime;
  await runtime.start();
  const table = new Map<string, { agent: string; verb: string }>();
  for (const p of primitives) {
    for (const [method, verb] of Object.entries(p.methods)) table.set(method, { agent: p.name, verb });
  }

  const invoke = async (method: string, data: JsonValue, options: CallOptions = {}): Promise<Envelope> => {
    const target = table.get(method);
    if (target === undefined && init.address === 'agent') throw new Error(`no primitive method ${method}`);
    const verb = target?.verb ?? method;
    const id = randomUUID();
    const { envelope } = await runtime.invoke(
      {
        id,
        kind: 'request',
        from: init.from,
        to: init.address === 'agent' && target !== undefined ? target.agent : `capability:${verb}`,
        verb,
        data,
        ...options.extra,
      },
      {
        face: 'internal',
        idempotencyKey: init.idempotencyKey?.(id) ?? randomUUID(),
        ...options.context,
      },
    );
    return envelope;
  };
  let stopped = false;
  const stopPrimitives = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await runtime.stop({ drainMs: 0 });
    for (const p of primitives) await p.stop();
  };
  return {
    log,
    runtime,
    primitives,
    invoke,
    async ok(method, data, options) {
      const answer = await invoke(method, data, options);
      if (answer.kind !== 'response') throw new Error(`${method} failed: ${JSON.stringify(answer.data)}`);
      return answer.data as JsonObject;
    },
    async fail(method, data, options) {
      const answer = await invoke(method, data, options);
      if (answer.kind !== 'error') throw new Error(`${method} succeeded: ${JSON.stringify(answer.data)}`);
      return answer.data as unknown as ErrorData;
    },
    stopPrimitives,
    async close(options = {}) {
      await stopPrimitives();
      if (ownLog && options.keepLog !== true) await log.stop();
      await removeDir();
    },
  };
}
