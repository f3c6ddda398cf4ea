/**
 * The `audits` effect handler: after the verb's handler, one `audit.effect` entry per leg
 * of a verb that declares `audits` — who called, which verb and agent, the audited
 * resources, and how the leg ended. When the entry cannot be written, a leg that succeeded
 * fails: a verb that must be audited does not answer unaudited.
 */
import type { JsonObject } from '../../core/json.js';
import { TRACEPARENT_PATTERN } from '../../store/event-input.js';
import type { EventLog } from '../../store/event-log.js';
import type { EventType } from '../../store/event-map.js';
import type { EffectCall, EffectHandler, EffectOutcome } from './effect-handler.js';

/** The event type of an effect audit entry. */
export const AUDIT_EFFECT_EVENT = 'audit.effect' satisfies EventType;

/**
 * Data of `audit.effect`: `{agent, at, attempt, code?, from, job, outcome, principal?,
 * resources, verb}`, built key by key in RFC 8785 order.
 */
export type AuditEffectData = JsonObject;

declare module '../../store/event-map.js' {
  /** The audit entry of a verb that declares `audits`. */
  interface EventMap {
    'audit.effect': AuditEffectData;
  }
}

/** Options of {@link auditsHandler}. */
export interface AuditsHandlerInit {
  readonly log: EventLog;
  /** The clock, Unix ms. @default Date.now */
  readonly now?: () => number;
}

/** Creates the `audits` handler. */
export function auditsHandler(init: AuditsHandlerInit): EffectHandler {
  const now = init.now ?? Date.now;
  return {
    effect: 'audits',
    async after(call: EffectCall, outcome: EffectOutcome): Promise<void> {
      const { envelope } = call;
      // Keys inserted in RFC 8785 order, so the log's canonical form needs no sorted copy.
      const data: JsonObject = {
        agent: call.agentId,
        at: new Date(now()).toISOString(),
        attempt: call.attempt,
      };
      if (!outcome.ok) data['code'] = outcome.error.code;
      data['from'] = envelope.from;
      data['job'] = call.jobId;
      data['outcome'] = outcome.ok ? 'completed' : 'failed';
      if (call.principal !== undefined) data['principal'] = call.principal.id;
      data['resources'] = [...call.resources];
      data['verb'] = call.verb;
      await init.log.append(
        {
          type: AUDIT_EFFECT_EVENT,
          data,
          causation: call.jobId,
          ...(envelope.tenantId === undefined ? {} : { tenant: envelope.tenantId }),
          ...(envelope.traceparent !== undefined && TRACEPARENT_PATTERN.test(envelope.traceparent)
            ? { trace: envelope.traceparent }
            : {}),
        },
        { signal: call.signal },
      );
    },
  };
}
