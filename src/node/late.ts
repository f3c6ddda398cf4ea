/**
 * A part of the node handed over once it exists: the runtime is created after the router and
 * the primitives that call it, so they receive it by `set` when the node has built it.
 */
import { PlexusError } from '../core/errors.js';

/** A value set once, after the holder was created. */
export interface Late<T> {
  /** The value. @throws PlexusError `UNAVAILABLE` before it is set. */
  readonly get: () => T;
  /** The value, or `undefined` before it is set. */
  readonly peek: () => T | undefined;
  /** Hands the value over. @throws PlexusError `INTERNAL` when it was set already. */
  readonly set: (value: T) => void;
}

/**
 * Creates an empty slot for `what` (named in the errors).
 *
 * @example
 * const runtime = late<Runtime>('the runtime');
 * const tool = runtimeToolCall(runtime.get);
 * runtime.set(createRuntime({ log, agents }));
 */
export function late<T>(what: string): Late<T> {
  let value: T | undefined;
  let set = false;
  return {
    get: (): T => {
      if (!set) throw new PlexusError('UNAVAILABLE', `${what} is not started yet`);
      return value as T;
    },
    peek: () => value,
    set: (next: T): void => {
      if (set) throw new PlexusError('INTERNAL', `${what} was handed over twice`);
      value = next;
      set = true;
    },
  };
}
