/**
 * The attribute names of Plexus spans (seed 002 §7.1, docs/observability.md "Traces"). The
 * runtime sets the `agentese.*` ones on its `runtime.invocation` span; the tracer copies them
 * unchanged. OpenTelemetry's own names (HTTP, RPC) come from `@opentelemetry/semantic-conventions`.
 */

/** The verb invoked (without `@version`). */
export const ATTR_VERB = 'agentese.verb';
/** The era of the verb that served the call (seed 002 §10), as a string. */
export const ATTR_VERSION = 'agentese.version';
/** The tenant the call acts for. */
export const ATTR_TENANT_ID = 'agentese.tenant_id';
/** The caller's capability scopes, comma-joined (empty when the credential carries none). */
export const ATTR_CAPABILITY_SCOPES = 'agentese.capability.scopes';
/** The verb's declared effects (`reads`, `writes`, …), comma-joined. */
export const ATTR_EFFECTS = 'agentese.effects';
/** The verb's projection hints (`ui:form`, …), comma-joined. */
export const ATTR_PROJECTION = 'agentese.projection';
/** Whether the verb is declared deterministic. */
export const ATTR_DETERMINISTIC = 'agentese.deterministic';
/** Whether the answer came from a stored answer (an idempotent duplicate) rather than a run. */
export const ATTR_CACHE_HIT = 'agentese.cache.hit';
/** The model a handler reports it called (`ctx.telemetry({ llm })`). */
export const ATTR_LLM_MODEL = 'agentese.llm.model';
/** Input tokens a handler reports. */
export const ATTR_LLM_TOKENS_INPUT = 'agentese.llm.tokens.input';
/** Output tokens a handler reports. */
export const ATTR_LLM_TOKENS_OUTPUT = 'agentese.llm.tokens.output';

/** Every `agentese.*` attribute name, in the seed's order. */
export const AGENTESE_ATTRIBUTES = [
  ATTR_VERB,
  ATTR_VERSION,
  ATTR_TENANT_ID,
  ATTR_CAPABILITY_SCOPES,
  ATTR_EFFECTS,
  ATTR_PROJECTION,
  ATTR_DETERMINISTIC,
  ATTR_CACHE_HIT,
  ATTR_LLM_MODEL,
  ATTR_LLM_TOKENS_INPUT,
  ATTR_LLM_TOKENS_OUTPUT,
] as const;
