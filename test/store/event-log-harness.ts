import { expect } from 'vitest';
import { PlexusError } from '../../src/core/errors.js';
import type {
  AnyEvents,
  Event,
  EventInput,
  EventLog,
  EventLogInit,
  EventMeta,
} from '../../src/store/index.js';

/** A change made to stored events behind the log's back. */
export type Tamper =
  | { readonly seq: number; readonly set: Partial<Record<keyof Event, unknown>> }
  | { readonly seq: number; readonly remove: true };

/** What the event log contract needs from one backend. */
export interface EventLogHarness {
  /** A fresh, not yet started log over empty storage. */
  create(init?: EventLogInit): EventLog<AnyEvents>;
  /**
   * Stops `log`, changes its stored events as `tamper` says (a raw UPDATE / DELETE for SQLite),
   * and returns a started log over the changed storage.
   */
  tamper(log: EventLog<AnyEvents>, tamper: Tamper): Promise<EventLog<AnyEvents>>;
  /** Removes the storage. */
  cleanup(): Promise<void>;
}

/** Builds a factory per test so each test gets clean storage. */
export type EventLogHarnessFactory = () => Promise<EventLogHarness>;

/** The error code of a rejected promise (fails the test when it resolves). */
export async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (error) {
    expect(error).toBeInstanceOf(PlexusError);
    return (error as PlexusError).code;
  }
  return 'resolved';
}

/** A sample event input. */
export function ev(type: string, data: unknown = null, extra: EventMeta = {}): EventInput<AnyEvents> {
  return { type, data, ...extra };
}

/** Collects `n` events from an iterable (then stops iterating). */
export async function take(iterable: AsyncIterable<Event>, n: number): Promise<Event[]> {
  const out: Event[] = [];
  if (n === 0) return out;
  for await (const e of iterable) {
    out.push(e);
    if (out.length >= n) break;
  }
  return out;
}

/** Resolves after `ms` milliseconds (lets timers and I/O run; never used to assert timing). */
export function tick(ms = 0): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Two valid W3C traceparents with different trace ids, and one sharing the first trace. */
export const TRACE_A = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
export const TRACE_A2 = '00-4bf92f3577b34da6a3ce929d0e0e4736-b7ad6b7169203331-01';
export const TRACE_B = '00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-00';
