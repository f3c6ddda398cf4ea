/**
 * The answers a fallback step gives in place of the far side's: a stale answer from the cache
 * (`local-cache`) and a queued receipt (`queue-for-sync`). Both are `response` envelopes whose
 * extension `_x_plexus_fallback` names the step; their `data` is a wrapper, not the verb's
 * output, so the caller cannot mistake one for a fresh answer:
 *
 * ```json
 * {"stale": true, "fallback": "local-cache", "cachedAt": "…", "agent": "math", "reason": "…", "output": {…}}
 * {"queued": true, "fallback": "queue-for-sync", "job": "…", "state": "SUBMITTED", "reason": "…"}
 * ```
 */
import type { Envelope } from '../../core/envelope.js';
import type { JsonValue } from '../../core/json.js';
import type { CachedAnswer } from './answer-cache.js';

/** The extension key marking an answer made by a fallback step (its value: the step name). */
export const FALLBACK_ANSWER_EXTENSION = '_x_plexus_fallback';

/** True when `answer` was made by a fallback step (its data is a wrapper, not the verb's output). */
export function isFallbackAnswer(answer: Envelope): boolean {
  return typeof answer.extensions?.[FALLBACK_ANSWER_EXTENSION] === 'string';
}

function answerTo(request: Envelope, from: string, step: string, data: JsonValue): Envelope {
  return {
    id: request.id,
    kind: 'response',
    from,
    to: request.from,
    verb: request.verb,
    data,
    correlationId: request.id,
    timestamp: new Date().toISOString(),
    ...(request.traceparent === undefined ? {} : { traceparent: request.traceparent }),
    extensions: { [FALLBACK_ANSWER_EXTENSION]: step },
  };
}

/** The `local-cache` answer: the cached output, marked stale, with why it was served. */
export function staleAnswer(request: Envelope, from: string, cached: CachedAnswer, reason: string): Envelope {
  return answerTo(request, from, 'local-cache', {
    stale: true,
    fallback: 'local-cache',
    cachedAt: cached.at,
    agent: cached.agent,
    reason,
    output: cached.output,
  });
}

/** The `queue-for-sync` answer: the id and state of the job that will deliver the request. */
export function queuedAnswer(
  request: Envelope,
  from: string,
  job: { readonly id: string; readonly state: string },
  reason: string,
): Envelope {
  return answerTo(request, from, 'queue-for-sync', {
    queued: true,
    fallback: 'queue-for-sync',
    job: job.id,
    state: job.state,
    reason,
  });
}
