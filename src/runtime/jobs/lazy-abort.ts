/**
 * A job's cancellation without an `AbortController` until someone needs one.
 *
 * Every job can be aborted (deadline, cancel, node stop), but most finish without it and
 * most handlers never look at their signal. An `AbortController` with an event listener per
 * job is a measurable part of a sync invocation (construction, `addEventListener`,
 * `removeEventListener`), so the engine races work against this object instead: one
 * callback slot, and a real `AbortSignal` made only when the signal is read (a handler that
 * uses `context.signal`, a remote call) — already aborted if the job was.
 */
import { PlexusError } from '../../core/errors.js';
import { abortError, asError } from './deadline.js';

/** What racing needs from an abort source: a flag, a reason and listeners. */
export interface AbortSource {
  /** The signal (made on first read by a lazy source). */
  readonly signal: AbortSignal;
  readonly aborted: boolean;
  readonly reason: unknown;
  /** Calls `fn` once when aborted; returns the function that removes it. */
  listen(fn: () => void): () => void;
}

/** An {@link AbortSource} over an existing signal. */
export function signalSource(signal: AbortSignal): AbortSource {
  return {
    signal,
    get aborted(): boolean {
      return signal.aborted;
    },
    get reason(): unknown {
      return signal.reason as unknown;
    },
    listen(fn) {
      signal.addEventListener('abort', fn, { once: true });
      return () => {
        signal.removeEventListener('abort', fn);
      };
    },
  };
}

/** A lazily made abort controller (see the module comment). */
export class LazyAbort implements AbortSource {
  #controller: AbortController | undefined;
  #listeners: (() => void)[] | undefined;
  #aborted = false;
  #reason: unknown;

  get aborted(): boolean {
    return this.#aborted;
  }

  get reason(): unknown {
    return this.#reason;
  }

  /** The controller, made now if needed; aborting through it aborts this source too. */
  get controller(): AbortController {
    if (this.#controller === undefined) {
      const controller = new AbortController();
      this.#controller = controller;
      if (this.#aborted) controller.abort(this.#reason);
      else
        controller.signal.addEventListener(
          'abort',
          () => {
            this.abort(controller.signal.reason);
          },
          { once: true },
        );
    }
    return this.#controller;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Aborts with `reason` (the first call wins): the signal, if made, and every listener. */
  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    const listeners = this.#listeners;
    this.#listeners = undefined;
    if (listeners !== undefined) for (const fn of listeners) fn();
  }

  listen(fn: () => void): () => void {
    if (this.#aborted) {
      fn();
      return () => undefined;
    }
    (this.#listeners ??= []).push(fn);
    return () => {
      const list = this.#listeners;
      if (list === undefined) return;
      const i = list.indexOf(fn);
      if (i >= 0) list.splice(i, 1);
    };
  }
}

/**
 * {@link raceAbort} over an {@link AbortSource}: settles like `work`, or rejects with the
 * abort reason (as a PlexusError) as soon as the source aborts. `work`'s later rejection is
 * handled.
 */
export function raceAbortSource<T>(work: Promise<T>, source: AbortSource, what?: string): Promise<T> {
  if (source.aborted) {
    work.catch(() => undefined);
    return Promise.reject(abortErrorOf(source, what));
  }
  return new Promise<T>((resolve, reject) => {
    const off = source.listen(() => {
      reject(abortErrorOf(source, what));
    });
    work.then(
      (value) => {
        off();
        resolve(value);
      },
      (error: unknown) => {
        off();
        reject(asError(error));
      },
    );
  });
}

/** The error an abort source was aborted with, as a PlexusError (`CANCELLED` when it gave none). */
export function abortErrorOf(source: AbortSource, what = 'the operation'): PlexusError {
  const reason = source.reason;
  if (reason instanceof PlexusError) return reason;
  // Same rules as `abortError` (which reads a signal's reason).
  return abortError({ reason } as AbortSignal, what);
}
