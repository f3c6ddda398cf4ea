/**
 * The `emits` effect handler: the events a verb's handler emitted through its context
 * (`ctx.emit`, checked against the declared `emits`) are appended after the handler
 * succeeded, in one atomic batch, with the job as their causation. A leg that fails
 * appends none of them (an outbox: effects of a failed call do not leak).
 */
import { TRACEPARENT_PATTERN } from '../../store/event-input.js';
import type { EventInput, EventLog } from '../../store/event-log.js';
import { openEventLog, type AnyEvents, type EventMeta } from '../../store/event-map.js';
import type { EffectCall, EffectHandler, EffectOutcome } from './effect-handler.js';

/** Options of {@link emitsHandler}. */
export interface EmitsHandlerInit {
  readonly log: EventLog;
}

/** Creates the `emits` handler. */
export function emitsHandler(init: EmitsHandlerInit): EffectHandler {
  return {
    effect: 'emits',
    async after(call: EffectCall, outcome: EffectOutcome): Promise<void> {
      const { emitted } = call.scope;
      if (!outcome.ok || emitted.length === 0) return;
      const { envelope } = call;
      const meta: EventMeta = {
        causation: call.jobId,
        ...(envelope.tenantId === undefined ? {} : { tenant: envelope.tenantId }),
        ...(envelope.traceparent !== undefined && TRACEPARENT_PATTERN.test(envelope.traceparent)
          ? { trace: envelope.traceparent }
          : {}),
      };
      // appended whatever the job's signal: the handler has already answered; the types are
      // the verb's own (declared under `emits`), unknown to the node's event map
      await openEventLog(init.log).append(
        emitted.map((e): EventInput<AnyEvents> => ({ type: e.type, data: e.data, ...meta })),
      );
    },
  };
}
