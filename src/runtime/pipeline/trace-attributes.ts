/**
 * The seed's `agentese.*` attributes of an invocation span (seed 002 §7.1; docs/observability.md
 * "Traces"), read from what the pipeline learnt: the verb's spec (era, effects, projection
 * hints, determinism) and the caller's scopes. Made only when the observer traces.
 */
import type { Envelope } from '../../core/envelope.js';
import type { VerbSpec } from '../../core/records/verb-spec.js';
import {
  ATTR_CAPABILITY_SCOPES,
  ATTR_DETERMINISTIC,
  ATTR_EFFECTS,
  ATTR_PROJECTION,
  ATTR_TENANT_ID,
  ATTR_VERB,
  ATTR_VERSION,
} from '../../observability/tracing/span-attributes.js';
import type { Principal } from '../context.js';
import type { ObserverAttributes } from '../observer.js';

/** The attributes of an accepted request (`spec` absent: a remote agent's verb this node has no spec of). */
export function invocationAttributes(
  request: Envelope,
  principal: Principal | undefined,
  spec: VerbSpec | undefined,
): ObserverAttributes {
  const out: Record<string, string | boolean> = {
    [ATTR_VERB]: request.verb,
    [ATTR_CAPABILITY_SCOPES]: (principal?.scopes ?? []).join(','),
  };
  if (request.tenantId !== undefined) out[ATTR_TENANT_ID] = request.tenantId; // bound by tenancy.ts
  if (spec !== undefined) {
    out[ATTR_VERSION] = String(spec.version);
    out[ATTR_EFFECTS] = Object.keys(spec.effects).join(',');
    out[ATTR_PROJECTION] = Object.keys(spec.projection ?? {}).join(',');
    out[ATTR_DETERMINISTIC] = spec.deterministic;
  }
  return out;
}
