/**
 * The primitives' per-key lock is the runtime's (`src/runtime/keyed-lock.ts`): one
 * implementation serves the budget ledger and every primitive.
 */
export { keyedLock, type KeyedLock } from '../runtime/keyed-lock.js';
