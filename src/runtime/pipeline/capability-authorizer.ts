/**
 * The capability authorizer (DESIGN D7, §3 "authorise"; seed 002 §2.2, §13.3): the request's
 * UCAN chain — in the envelope's `capability` field, or the `proof` of an AGENTESE
 * capability object — must be addressed to this node, rest on a trusted root, cover the verb
 * (a capability on `agentese:verb/<name>` or a pattern covering it) and grant every scope and
 * effect the verb spec declares (for a broadcast, every candidate's). Refusals are
 * `UNAUTHORIZED` (no token, or a broken link: `details.reason`, `details.link`,
 * `details.cid`) or `FORBIDDEN` (a valid chain without a needed scope or effect:
 * `details.scope`, `details.resource`, `details.ability`).
 *
 * Every decision on a mutation (verb category `mutation`) is written to the log as an
 * `audit.capability` event — `allowed`, `denied`, or `forced` (let through by an exemption
 * or with enforcement off, with the rationale) — before the request goes on or is refused.
 */
import { canonicalizeJcs } from '../../core/canonical/jcs.js';
import type { Envelope } from '../../core/envelope.js';
import { PlexusError, toPlexusError } from '../../core/errors.js';
import { sha256Hex } from '../../core/hash.js';
import { isJsonObject, type JsonObject } from '../../core/json.js';
import type { VerbSpec } from '../../core/records/verb-spec.js';
import { isDidKey } from '../../security/did-key.js';
import type { Requirement } from '../../security/ucan/capability.js';
import type { UcanVerifier, VerifiedChain } from '../../security/ucan/chain-verifier.js';
import { assertCovers, unionRequirements, verbRequirements } from '../../security/ucan/requirements.js';
import { ucanError } from '../../security/ucan/ucan-error.js';
import { TRACEPARENT_PATTERN } from '../../store/event-input.js';
import type { EventInput, EventLog } from '../../store/event-log.js';
import type { EventType } from '../../store/event-map.js';
import { CAPABILITY_CHECK_COUNT } from '../../observability/span-names.js';
import type { Principal } from '../context.js';
import type { Observer } from '../observer.js';
import type { Candidate } from '../routing/router.js';
import type { AuthorizationRequest, Authorizer } from './authorize.js';
import type { PreEffect } from './effects.js';

/** The event type of a capability audit entry. */
export const AUDIT_CAPABILITY_EVENT = 'audit.capability' satisfies EventType;

/**
 * Data of `audit.capability`: `{at, code?, decision, details?, effects, face, inputHash,
 * invoker?, principal?, reason?, request, tenant?, token?, trace?, user?, verb}`, built key by
 * key in RFC 8785 order.
 */
export type AuditCapabilityData = JsonObject;

declare module '../../store/event-map.js' {
  /** The audit entry of a capability decision. */
  interface EventMap {
    'audit.capability': AuditCapabilityData;
  }
}

/** The decisions an audit entry records (seed 002 §13.3). */
export const CAPABILITY_DECISIONS = ['allowed', 'denied', 'forced'] as const;
/** One of {@link CAPABILITY_DECISIONS}. */
export type CapabilityDecision = (typeof CAPABILITY_DECISIONS)[number];

/** The extension key of an AGENTESE capability object (whose `proof` may carry the chain). */
const AGENTESE_CAPABILITY_EXTENSION = '_x_agentese_capability';

/** Injected dependencies of {@link capabilityAuthorizer}. */
export interface CapabilityAuthorizerComponents {
  /** Verifies chains (trusted roots, this node's DID as audience, revocations, cache). */
  readonly verifier: UcanVerifier;
  /** Where audit entries go: the node's log. Without it, nothing is audited. */
  readonly log?: EventLog;
  /** The clock, Unix ms (the audit entry's `at`). @default Date.now */
  readonly now?: () => number;
  /** Where each check is counted ({@link CAPABILITY_CHECK_COUNT}). @default none */
  readonly observer?: Observer;
}

/** Options of {@link capabilityAuthorizer}. */
export interface CapabilityAuthorizerInit extends CapabilityAuthorizerComponents {
  /**
   * Refuse requests without a token even for verbs that declare no scope or effect. (A token
   * that is presented must cover the verb whatever this says.)
   * @default true
   */
  readonly requireToken?: boolean;
  /**
   * Refuse what the token does not cover. When false, such requests go on and mutations
   * are audited `forced` with the reason they would have been refused.
   * @default true
   */
  readonly enforce?: boolean;
  /**
   * Lets a request through that the token does not cover, returning the rationale (audited
   * as `forced`), or `undefined` to apply the check (e.g. in-process calls of the node).
   * @default none
   */
  readonly exempt?: (request: AuthorizationRequest) => string | undefined;
  /**
   * How `allowed` and `forced` entries reach the log: `append` writes each at once; `batch`
   * hands it to {@link CapabilityAuthorizer.auditEffect}, which the runtime must run as a
   * pre-effect, so the entry is committed atomically with `job.submitted` (no extra commit;
   * a request refused later, e.g. a duplicate, then leaves no entry — its mutation never
   * runs). `denied` entries are always appended at once.
   * @default 'append'
   */
  readonly auditMode?: 'append' | 'batch';
}

/** The capability authorizer, with the pre-effect that carries its batched audit entries. */
export interface CapabilityAuthorizer extends Authorizer {
  /** Put it in `RuntimeComponents.preEffects` (with `auditPreEffect`) when `auditMode` is `batch`. */
  readonly auditEffect: PreEffect;
  /**
   * True when `request` would be let through (allowed, exempt, or enforcement off), decided as
   * {@link Authorizer.authorize} decides but writing no audit entry: what a face asks to show
   * a caller only what it may call (MCP `tools/list`).
   */
  permits(request: AuthorizationRequest): boolean;
}

/** What the authorizer derives once per verb spec. */
interface SpecFacts {
  readonly requirements: readonly Requirement[];
  /** The first scope or effect the verb declares (a request without a token is refused then). */
  readonly declared: Requirement | undefined;
  readonly charges: readonly string[];
  readonly mutation: boolean;
  readonly effects: JsonObject;
}

const facts = new WeakMap<VerbSpec, SpecFacts>();

function factsOf(spec: VerbSpec): SpecFacts {
  let f = facts.get(spec);
  if (f === undefined) {
    const requirements = verbRequirements(spec);
    f = {
      requirements,
      declared: requirements.find((r) => r.kind !== 'verb'),
      charges: spec.effects.charges ?? [],
      mutation: spec.category === 'mutation',
      effects: spec.effects as unknown as JsonObject,
    };
    facts.set(spec, f);
  }
  return f;
}

/** Chains known to cover a verb's needs whatever the request (no caveat was involved). */
const covered = new WeakMap<VerifiedChain, WeakSet<SpecFacts>>();

const NO_FACTS: SpecFacts = {
  requirements: [],
  declared: undefined,
  charges: [],
  mutation: false,
  effects: {},
};

function combined(specs: readonly VerbSpec[]): SpecFacts {
  if (specs.length === 0) return NO_FACTS;
  if (specs.length === 1) return factsOf(specs[0] as VerbSpec);
  const all = specs.map(factsOf);
  const requirements = unionRequirements(all.map((f) => f.requirements));
  return {
    requirements,
    declared: requirements.find((r) => r.kind !== 'verb'),
    charges: [...new Set(all.flatMap((f) => f.charges))],
    mutation: all.some((f) => f.mutation),
    effects: Object.assign({}, ...all.map((f) => f.effects)) as JsonObject,
  };
}

/** The `scope` label of a check: what a refusal named, else what the verb declares first. */
function checkedScope(f: SpecFacts, refusal: PlexusError | undefined): string {
  const named = refusal?.details?.['scope'];
  if (typeof named === 'string' && named !== '') return named;
  return f.declared?.scope ?? 'verb';
}

/** The capability container a request carries, if any. */
export function capabilityOf(envelope: Envelope): string | undefined {
  if (envelope.capability !== undefined) return envelope.capability;
  const object = envelope.extensions?.[AGENTESE_CAPABILITY_EXTENSION];
  if (isJsonObject(object) && typeof object['proof'] === 'string' && object['proof'] !== '') {
    return object['proof'];
  }
  return undefined;
}

function bindInvoker(principal: Principal | undefined, chain: VerifiedChain): void {
  if (principal === undefined || !principal.id.startsWith('did:key:') || principal.id === chain.invoker)
    return;
  if (!isDidKey(principal.id)) return;
  throw ucanError(
    'invoker-mismatch',
    `the capability token was delegated to ${chain.invoker}, but the request comes from ${principal.id}; it cannot use another principal's token`,
    { link: 0, cid: chain.cid },
  );
}

/**
 * Creates the capability authorizer. Pass it in `RuntimeComponents.authorizers`.
 *
 * @example
 * const verifier = ucanVerifier({ roots: [nodeDid], audience: nodeDid, revocations });
 * createRuntime({ log, authorizers: [capabilityAuthorizer({ verifier, log })] });
 */
export function capabilityAuthorizer(init: CapabilityAuthorizerInit): CapabilityAuthorizer {
  const { verifier, log, observer } = init;

  const requireToken = init.requireToken ?? true;
  const enforce = init.enforce ?? true;
  const now = init.now ?? Date.now;
  const batch = init.auditMode === 'batch';
  const pending = new WeakMap<Envelope, EventInput>();

  function auditEvent(
    request: AuthorizationRequest,
    f: SpecFacts,
    decision: CapabilityDecision,
    chain: VerifiedChain | undefined,
    reason: string | undefined,
    refusal: PlexusError | undefined,
  ): EventInput {
    const { envelope } = request;
    // Keys inserted in RFC 8785 order, so the log's canonical form needs no sorted copy.
    const data: JsonObject = { at: new Date(now()).toISOString() };
    if (refusal !== undefined) data['code'] = refusal.code;
    data['decision'] = decision;
    if (refusal?.details !== undefined) data['details'] = refusal.details;
    data['effects'] = f.effects;
    data['face'] = request.context.face;
    data['inputHash'] = sha256Hex(canonicalizeJcs(envelope.data));
    if (chain !== undefined) data['invoker'] = chain.invoker;
    const principal = request.principal?.id ?? chain?.invoker;
    if (principal !== undefined) data['principal'] = principal;
    if (reason !== undefined) data['reason'] = reason;
    data['request'] = envelope.id;
    if (envelope.tenantId !== undefined) data['tenant'] = envelope.tenantId;
    if (chain !== undefined) data['token'] = chain.cid;
    const trace = envelope.traceparent;
    if (trace !== undefined) data['trace'] = trace;
    if (envelope.userId !== undefined) data['user'] = envelope.userId;
    data['verb'] = envelope.verb;
    return {
      type: AUDIT_CAPABILITY_EVENT,
      data,
      causation: envelope.id,
      ...(envelope.tenantId === undefined ? {} : { tenant: envelope.tenantId }),
      ...(trace !== undefined && TRACEPARENT_PATTERN.test(trace) ? { trace } : {}),
    };
  }

  async function audit(event: EventInput, signal: AbortSignal): Promise<void> {
    if (log !== undefined) await log.append(event, { signal });
  }

  /** Records an `allowed` / `forced` entry: at once, or held for the pre-effect. */
  function record(
    request: AuthorizationRequest,
    event: EventInput,
    signal: AbortSignal,
  ): Promise<void> | undefined {
    if (!batch) return audit(event, signal);
    pending.set(request.envelope, event);
    return undefined;
  }

  const auditEffect: PreEffect = {
    name: 'capability-audit',
    before(call) {
      const event = pending.get(call.envelope);
      if (event === undefined) return undefined;
      pending.delete(call.envelope);
      return [{ ...event, causation: call.jobId }];
    },
  };

  /** The authorizer's decision on `request`, without any audit entry. */
  function decide(request: AuthorizationRequest): {
    f: SpecFacts;
    chain: VerifiedChain | undefined;
    refusal: PlexusError | undefined;
  } {
    const { envelope } = request;
    const { candidates } = request.resolution;
    let f: SpecFacts;
    if (candidates.length === 1) {
      const spec = request.verbSpec((candidates[0] as Candidate).card.id);
      f = spec === undefined ? NO_FACTS : factsOf(spec);
    } else {
      const specs: VerbSpec[] = [];
      for (const candidate of candidates) {
        const spec = request.verbSpec(candidate.card.id);
        if (spec !== undefined && !specs.includes(spec)) specs.push(spec);
      }
      f = combined(specs);
    }
    const token = capabilityOf(envelope);
    let chain: VerifiedChain | undefined;
    let refusal: PlexusError | undefined;
    try {
      if (token === undefined) {
        if (requireToken || f.declared !== undefined) {
          const first = f.declared;
          throw ucanError(
            'missing',
            first === undefined
              ? `${envelope.verb} needs a capability token (UCAN); send one in the envelope's capability field`
              : `${envelope.verb} needs a capability token (UCAN) granting ${first.scope}; send one in the envelope's capability field`,
            first === undefined
              ? {}
              : { scope: first.scope, resource: first.resource, ability: first.ability },
          );
        }
      } else {
        chain = verifier.verify(token);
        bindInvoker(request.principal, chain);
        if (covered.get(chain)?.has(f) !== true) {
          const contextFree = assertCovers(
            chain.capabilities,
            f.requirements,
            { tenantId: envelope.tenantId, sessionId: envelope.sessionId, charges: f.charges },
            envelope.verb,
          );
          if (contextFree) {
            let set = covered.get(chain);
            if (set === undefined) covered.set(chain, (set = new WeakSet()));
            set.add(f);
          }
        }
      }
    } catch (error) {
      if (!(error instanceof PlexusError)) throw error;
      refusal = error;
    }
    return { f, chain, refusal };
  }

  return {
    name: 'capability',
    auditEffect,
    permits(request) {
      const { refusal } = decide(request);
      return refusal === undefined || init.exempt?.(request) !== undefined || !enforce;
    },
    authorize(request, signal) {
      const { f, chain, refusal } = decide(request);
      observer?.count(CAPABILITY_CHECK_COUNT, {
        scope: checkedScope(f, refusal),
        result:
          refusal === undefined
            ? 'allowed'
            : init.exempt?.(request) !== undefined || !enforce
              ? 'forced'
              : 'denied',
      });
      if (refusal === undefined) {
        return f.mutation && log !== undefined
          ? record(request, auditEvent(request, f, 'allowed', chain, undefined, undefined), signal)
          : undefined;
      }
      const rationale =
        init.exempt?.(request) ??
        (enforce ? undefined : `enforcement is off; refused otherwise: ${refusal.message}`);
      if (rationale !== undefined) {
        return f.mutation && log !== undefined
          ? record(request, auditEvent(request, f, 'forced', chain, rationale, refusal), signal)
          : undefined;
      }
      if (!f.mutation || log === undefined) throw refusal;
      const denied = refusal;
      return audit(auditEvent(request, f, 'denied', chain, denied.message, denied), signal).then(
        () => {
          throw denied;
        },
        (cause: unknown) => {
          throw new PlexusError(denied.code, denied.message, {
            cause: toPlexusError(cause),
            ...(denied.details === undefined ? {} : { details: denied.details }),
          });
        },
      );
    },
  };
}
