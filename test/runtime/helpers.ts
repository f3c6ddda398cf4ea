/**
 * Test helpers for the runtime: cards, requests, agents, and a runtime over a started log.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Envelope } from '../../src/core/envelope.js';
import type { JsonValue } from '../../src/core/json.js';
import type { AgentCapability, AgentCard } from '../../src/core/records/agent-card.js';
import type { VerbSpec } from '../../src/core/records/verb-spec.js';
import {
  createRuntime,
  defineAgent,
  memoryObserver,
  type AgentDefinition,
  type AgentHandlers,
  type MemoryObserver,
  type RestartPolicy,
  type Runtime,
  type RuntimeInit,
} from '../../src/runtime/index.js';
import { memoryEventLog, sqliteEventLog, type EventLog } from '../../src/store/index.js';
import { memoryLogger, type MemoryLogger } from '../support/memory-logger.js';

/** A capability with permissive schemas unless given. */
export function cap(
  verb: string,
  input: AgentCapability['input'] = true,
  output: AgentCapability['output'] = true,
): AgentCapability {
  return { verb, input, output };
}

/** A valid card. */
export function card(
  id: string,
  capabilities: readonly AgentCapability[] = [],
  extra: Partial<AgentCard> = {},
): AgentCard {
  return { id, name: `Agent ${id}`, version: '1.0.0', tier: 'L3', capabilities, ...extra };
}

/** A verb spec; `query` + deterministic by default (safe to run again). */
export function spec(name: string, extra: Partial<VerbSpec> = {}): VerbSpec {
  return {
    name,
    version: 1,
    status: 'stable',
    input: true,
    output: true,
    effects: {},
    capabilities: [],
    category: 'query',
    deterministic: true,
    ...extra,
  };
}

/** A request envelope. */
export function request(
  verb: string,
  data: JsonValue,
  to = `capability:${verb}`,
  extra: Partial<Envelope> = {},
): Envelope {
  return { id: randomUUID(), kind: 'request', from: 'did:example:caller', to, verb, data, ...extra };
}

/** An agent with one handler per verb. */
export function agent(
  id: string,
  handlers: AgentHandlers,
  options: {
    readonly capabilities?: readonly AgentCapability[];
    readonly verbs?: readonly VerbSpec[];
    readonly restart?: Partial<RestartPolicy>;
    readonly onCreate?: () => void;
  } = {},
): AgentDefinition {
  return defineAgent({
    card: card(id, options.capabilities ?? Object.keys(handlers).map((v) => cap(v))),
    ...(options.verbs === undefined ? {} : { verbs: options.verbs }),
    ...(options.restart === undefined ? {} : { restart: options.restart }),
    create: () => {
      options.onCreate?.();
      return handlers;
    },
  });
}

/** Resolves after `ms` (for letting handlers start; never used to assert timings). */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A promise with its resolver, for handlers that wait on the test. */
export function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open: (value: T) => void = () => undefined;
  const promise = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** A runtime under test with its log, observer and logger. */
export interface Harness {
  readonly log: EventLog;
  readonly runtime: Runtime;
  readonly observer: MemoryObserver;
  /** What the runtime logged. */
  readonly logger: MemoryLogger;
  /** Stops the runtime (no drain) and the log. */
  close(): Promise<void>;
}

/** Starts a runtime over `log` (a fresh memory log by default). */
export async function startRuntime(
  init: Omit<RuntimeInit, 'log'> = {},
  log: EventLog = memoryEventLog(),
): Promise<Harness> {
  await log.start();
  const observer = init.observer === undefined ? memoryObserver() : (init.observer as MemoryObserver);
  const logger = init.logger === undefined ? memoryLogger() : (init.logger as MemoryLogger);
  const runtime = createRuntime({ ...init, log, observer, logger });
  await runtime.start();
  return {
    log,
    runtime,
    observer,
    logger,
    async close() {
      await runtime.stop({ drainMs: 0 });
      await log.stop();
    },
  };
}

/** A temporary directory for a SQLite log, and its removal. */
export async function tempDir(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'plexus-runtime-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** A SQLite event log in `dir`. */
export function sqliteLog(dir: string): EventLog {
  return sqliteEventLog({ dir });
}

/** One event log under test: the log, a way to open it again after `stop()`, and cleanup. */
export interface LogUnderTest {
  readonly log: EventLog;
  /** A log over the same storage (call after stopping the previous one). */
  readonly reopen: () => EventLog;
  readonly cleanup: () => Promise<void>;
}

/** The log backends the contract-style suites run against. */
export const LOG_BACKENDS: readonly { readonly name: string; readonly make: () => Promise<LogUnderTest> }[] =
  [
    {
      name: 'memory',
      make: () => {
        const log = memoryEventLog();
        return Promise.resolve({ log, reopen: () => log, cleanup: () => Promise.resolve() });
      },
    },
    {
      name: 'sqlite',
      make: async () => {
        const { dir, remove } = await tempDir();
        return { log: sqliteLog(dir), reopen: () => sqliteLog(dir), cleanup: remove };
      },
    },
  ];
