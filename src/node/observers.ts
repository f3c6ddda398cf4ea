/**
 * One runtime observer over several (the node's meters, its log lines): each span and count
 * goes to every one of them, in order.
 */
import type { Observer, ObserverSpan } from '../runtime/index.js';

/** An observer telling each of `observers` everything (one of them: that one itself). */
export function fanOutObserver(observers: readonly Observer[]): Observer {
  const [only] = observers;
  if (observers.length === 1 && only !== undefined) return only;
  return {
    span(name, attributes) {
      const spans: ObserverSpan[] = observers.map((o) => o.span(name, attributes));
      return {
        end(error, end) {
          for (const span of spans) span.end(error, end);
        },
      };
    },
    count(name, attributes, value) {
      for (const o of observers) o.count(name, attributes, value);
    },
  };
}
