/**
 * The AGENTESE codec (seed 002 §2.1, DESIGN D6): an AGENTESE envelope ⇄ a core `request`
 * Envelope.
 *
 * | AGENTESE                       | core Envelope                                        |
 * |--------------------------------|------------------------------------------------------|
 * | `verb` + `version`             | `verb` = `name@version` (just `name` with no era)     |
 * | `tenant_id`, `user_id`, `session_id` | `tenantId`, `userId`, `sessionId`              |
 * | `trace_id` + `span_id` (W3C)   | `traceparent` = `00-<trace>-<span>-01`               |
 * | `trace_id` + `span_id` (other) | `_x_agentese_trace_id`, `_x_agentese_span_id`        |
 * | `parent_span_id`, `target`, `fallback_policy` | `_x_agentese_parent_span_id`, `_x_agentese_target`, `_x_agentese_fallback_policy` |
 * | `capability` (token string)    | `capability`                                         |
 * | `capability` (object)          | `_x_agentese_capability`                             |
 * | `timestamp`, `deadline`        | `timestamp`, `deadline`                              |
 * | `input`                        | `data`                                               |
 * | other `_x_*` members           | `extensions` (same keys)                             |
 * | —                              | `kind` = `request`; `id` = `span_id`; `from` = `user_id`; `to` = `capability:<verb name>` |
 *
 * Core fields AGENTESE has no place for (`correlationId`, `causationId`, `scopeId`,
 * `schemaVersion`, `signature`) — and `id`, `from`, `to`, `traceparent` when they differ
 * from what decoding derives — travel in `_x_plexus_<field>` members, so both round trips are
 * exact. The wire's normal form: `null` optional fields are left out and the era sits in
 * `version`, not in `verb`.
 */
import type { Envelope } from '../../core/envelope.js';
import { isJsonObject } from '../../core/json.js';
import type { JsonObject } from '../../core/json.js';
import { childPointer } from '../../core/problem.js';
import type { Problem } from '../../core/problem.js';
import { throwIfProblems } from '../../core/schema-validator.js';
import { capabilitySelector, formatVerbName, parseVerbName, verbNameProblem } from '../../core/verb-name.js';
import type { VerbVersion } from '../../core/verb-name.js';
import type { WireCodec } from '../codec.js';
import {
  AGENTESE_EXTENSIONS,
  AGENTESE_EXTENSION_PREFIX,
  CARRIED_CORE_FIELDS,
  PLEXUS_CARRY_PREFIX,
} from './envelope.js';
import type { AgenteseEnvelope } from './envelope.js';
import { formatTraceparent, isW3cSpanId, isW3cTraceId, parseTraceparent } from './traceparent.js';
import { validateAgentese } from './validate.js';

const X = AGENTESE_EXTENSIONS;
const NULLABLE_FIELDS = ['parent_span_id', 'deadline', 'target'] as const;

/**
 * The normal form of a valid AGENTESE envelope: `null` `parent_span_id` / `deadline` /
 * `target` left out, and a verb's `@version` moved to `version`. `encode(decode(w))` equals
 * `normalizeAgentese(w)`.
 */
export function normalizeAgentese(wire: AgenteseEnvelope): AgenteseEnvelope {
  const out: Record<string, unknown> = { ...wire };
  for (const f of NULLABLE_FIELDS) if (out[f] === null) Reflect.deleteProperty(out, f);
  const parsed = parseVerbName(wire.verb);
  out['verb'] = parsed.name;
  if (parsed.version !== undefined) out['version'] = parsed.version;
  return out as unknown as AgenteseEnvelope;
}

/** The core fields decoding derives from the wire, before `_x_plexus_` overrides. */
function derive(wire: AgenteseEnvelope): Record<string, unknown> {
  const parsed = parseVerbName(wire.verb);
  const version: VerbVersion | undefined = parsed.version ?? wire.version;
  const out: Record<string, unknown> = {
    id: wire.span_id,
    kind: 'request',
    from: wire.user_id,
    to: capabilitySelector(parsed.name),
    verb: version === undefined ? parsed.name : formatVerbName({ name: parsed.name, version }),
    data: wire.input,
    tenantId: wire.tenant_id,
    userId: wire.user_id,
    sessionId: wire.session_id,
    timestamp: wire.timestamp,
  };
  if (wire.deadline !== undefined && wire.deadline !== null) out['deadline'] = wire.deadline;
  if (typeof wire.capability === 'string') out['capability'] = wire.capability;
  if (isW3cTraceId(wire.trace_id) && isW3cSpanId(wire.span_id)) {
    out['traceparent'] = formatTraceparent({ traceId: wire.trace_id, spanId: wire.span_id });
  }
  return out;
}

/**
 * Decodes an AGENTESE envelope to a core `request` Envelope.
 *
 * @throws PlexusError `INVALID_REQUEST` with `details.problems` (every problem, each with
 *   its JSON pointer) when `input` is not a valid AGENTESE envelope — including a verb that
 *   breaks D6 and a `version` that differs from the verb's own `@version`.
 */
export function decodeAgentese(input: unknown): Envelope {
  throwIfProblems(validateAgentese(input), 'AGENTESE envelope', 'INVALID_REQUEST');
  const wire = input as AgenteseEnvelope & JsonObject;
  const out = derive(wire);
  const extensions: JsonObject = {};
  if (!isW3cTraceId(wire.trace_id) || !isW3cSpanId(wire.span_id)) {
    extensions[X.traceId] = wire.trace_id;
    extensions[X.spanId] = wire.span_id;
  }
  if (typeof wire.parent_span_id === 'string') extensions[X.parentSpanId] = wire.parent_span_id;
  if (typeof wire.target === 'string') extensions[X.target] = wire.target;
  if (wire.fallback_policy !== undefined) extensions[X.fallbackPolicy] = wire.fallback_policy;
  if (typeof wire.capability !== 'string')
    extensions[X.capability] = wire.capability as unknown as JsonObject;
  for (const [key, value] of Object.entries(wire)) {
    if (key.startsWith(PLEXUS_CARRY_PREFIX)) {
      const field = key.slice(PLEXUS_CARRY_PREFIX.length);
      if (value === null) Reflect.deleteProperty(out, field);
      else out[field] = value;
    } else if (key.startsWith('_x_')) {
      extensions[key] = value;
    }
  }
  if (Object.keys(extensions).length > 0) out['extensions'] = extensions;
  return out as unknown as Envelope;
}

function need(
  envelope: Envelope,
  field: 'tenantId' | 'userId' | 'sessionId' | 'timestamp',
  wireName: string,
  problems: Problem[],
): string {
  const value = envelope[field];
  if (value === undefined) {
    problems.push({ pointer: `/${field}`, message: `AGENTESE requires ${wireName}; set envelope.${field}` });
    return '';
  }
  return value;
}

function stringExt(ext: JsonObject, key: string, problems: Problem[]): string | undefined {
  const value = ext[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') {
    problems.push({ pointer: childPointer('/extensions', key), message: 'must be a string' });
    return undefined;
  }
  return value;
}

function traceIds(
  envelope: Envelope,
  ext: JsonObject,
  problems: Problem[],
): { trace_id: string; span_id: string } {
  const rawTrace = stringExt(ext, X.traceId, problems);
  const rawSpan = stringExt(ext, X.spanId, problems);
  if (rawTrace !== undefined || rawSpan !== undefined) {
    if (rawTrace === undefined || rawSpan === undefined) {
      problems.push({
        pointer: childPointer('/extensions', rawTrace === undefined ? X.traceId : X.spanId),
        message: `${X.traceId} and ${X.spanId} go together; set both or neither`,
      });
    }
    return { trace_id: rawTrace ?? '', span_id: rawSpan ?? '' };
  }
  const parts = envelope.traceparent === undefined ? undefined : parseTraceparent(envelope.traceparent);
  if (parts === undefined) {
    problems.push({
      pointer: '/traceparent',
      message: 'AGENTESE requires trace_id and span_id; set a version-00 envelope.traceparent',
    });
    return { trace_id: '', span_id: '' };
  }
  return { trace_id: parts.traceId, span_id: parts.spanId };
}

/**
 * Encodes a core `request` Envelope as an AGENTESE envelope (in normal form).
 *
 * @throws PlexusError `INVALID_PARAMS` with `details.problems` when the envelope has no
 *   AGENTESE form: another kind, a verb that breaks D6, a missing tenant, user, session,
 *   timestamp, trace ids or capability, both a token and a capability object, an extension
 *   key without `_x_`, or an unknown `_x_agentese_…` / `_x_plexus_…` extension.
 */
export function encodeAgentese(envelope: Envelope): AgenteseEnvelope {
  const problems: Problem[] = [];
  if (envelope.kind !== 'request') {
    problems.push({
      pointer: '/kind',
      message: `an AGENTESE envelope is an invocation; kind "${envelope.kind}" has no AGENTESE form`,
    });
  }
  const ext = envelope.extensions ?? {};
  const verbProblem = verbNameProblem(envelope.verb);
  const parsed = verbProblem === undefined ? parseVerbName(envelope.verb) : undefined;
  if (verbProblem !== undefined) problems.push({ pointer: '/verb', message: verbProblem });

  const wire: Record<string, unknown> = { verb: parsed?.name ?? envelope.verb };
  if (parsed?.version !== undefined) wire['version'] = parsed.version;
  wire['tenant_id'] = need(envelope, 'tenantId', 'tenant_id', problems);
  wire['user_id'] = need(envelope, 'userId', 'user_id', problems);
  wire['session_id'] = need(envelope, 'sessionId', 'session_id', problems);
  Object.assign(wire, traceIds(envelope, ext, problems));
  const parent = stringExt(ext, X.parentSpanId, problems);
  if (parent !== undefined) wire['parent_span_id'] = parent;

  const capObject = ext[X.capability];
  if (envelope.capability !== undefined && capObject !== undefined) {
    problems.push({
      pointer: '/capability',
      message: `set either envelope.capability (a token) or ${X.capability} (an object), not both`,
    });
  } else if (envelope.capability !== undefined) {
    wire['capability'] = envelope.capability;
  } else if (isJsonObject(capObject)) {
    wire['capability'] = capObject;
  } else if (capObject !== undefined) {
    problems.push({
      pointer: childPointer('/extensions', X.capability),
      message: 'must be a capability object',
    });
  } else {
    problems.push({
      pointer: '/capability',
      message: 'AGENTESE requires a capability; set envelope.capability (a UCAN token)',
    });
  }
  wire['timestamp'] = need(envelope, 'timestamp', 'timestamp', problems);
  if (envelope.deadline !== undefined) wire['deadline'] = envelope.deadline;
  const target = stringExt(ext, X.target, problems);
  if (target !== undefined) wire['target'] = target;
  const fallback = stringExt(ext, X.fallbackPolicy, problems);
  if (fallback !== undefined) wire['fallback_policy'] = fallback;
  wire['input'] = envelope.data;

  const known = new Set<string>(Object.values(X));
  for (const [key, value] of Object.entries(ext)) {
    if (known.has(key)) continue;
    const pointer = childPointer('/extensions', key);
    if (!key.startsWith('_x_'))
      problems.push({ pointer, message: `extension key "${key}" must start with "_x_"` });
    else if (key.startsWith(AGENTESE_EXTENSION_PREFIX)) {
      problems.push({ pointer, message: `"${key}" is not an extension the AGENTESE codec knows` });
    } else if (key.startsWith(PLEXUS_CARRY_PREFIX)) {
      problems.push({
        pointer,
        message: `"${key}" is reserved: the "${PLEXUS_CARRY_PREFIX}" prefix carries core fields`,
      });
    } else wire[key] = value;
  }
  if (problems.length === 0) {
    const derived = derive(wire as unknown as AgenteseEnvelope);
    for (const field of CARRIED_CORE_FIELDS) {
      const actual = envelope[field];
      if (JSON.stringify(actual) !== JSON.stringify(derived[field])) {
        wire[`${PLEXUS_CARRY_PREFIX}${field}`] = actual ?? null;
      }
    }
    problems.push(...validateAgentese(wire));
  }
  throwIfProblems(problems, 'envelope cannot be encoded as an AGENTESE envelope');
  return wire as unknown as AgenteseEnvelope;
}

/**
 * A {@link WireCodec} for the AGENTESE face.
 *
 * @example
 * const envelope = agenteseCodec.decode(JSON.parse(text));
 */
export function createAgenteseCodec(): WireCodec<AgenteseEnvelope> {
  return { format: 'agentese', validate: validateAgentese, decode: decodeAgentese, encode: encodeAgentese };
}

/** The AGENTESE codec. */
export const agenteseCodec: WireCodec<AgenteseEnvelope> = createAgenteseCodec();
