/**
 * The router of seed 002 §6.2–6.3 as the runtime's `RemoteInvoker`: a request the job engine
 * sends to a remote agent goes to the first transport that supports the agent's peer; when
 * that fails to deliver (a retryable transport failure), the request's fallback policy is
 * walked step by step — other targets and target groups, `local-cache`, `queue-for-sync`,
 * `error` — until one answers. Every forwarded request is a child span of the forwarding job
 * (same trace id, new span id, parent span named).
 *
 * `queue-for-sync` and the delivery of its jobs are in `sync-queue.ts`.
 */
import type { Envelope } from '../../core/envelope.js';
import { PlexusError, toPlexusError, type ErrorData } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { isJsonObject, type JsonValue } from '../../core/json.js';
import type { AgentCard } from '../../core/records/agent-card.js';
import { capabilitySelector } from '../../core/verb-name.js';
import type { EventInput, EventLog } from '../../store/event-log.js';
import type { EventMap } from '../../store/event-map.js';
import { projectionView, type ProjectionView } from '../../store/projection-view.js';
import type { SnapshotStore } from '../../store/projection-snapshots.js';
import type { RemoteCallContext, RemoteInvoker, TargetRoutes } from './remote.js';
import type { Observer } from '../observer.js';
import { FALLBACK_COUNT, FORWARD_SPAN } from '../../observability/span-names.js';
import type { Runtime } from '../runtime-interface.js';
import {
  ROUTING_EVENTS,
  answerCacheProjection,
  answerKey,
  type AnswerCacheState,
  type RoutingEventType,
} from './answer-cache.js';
import { isAborted, isDeliveryFailure, outgoing } from './delivery.js';
import { SENT_DETAIL, wasNeverSent } from './unsent.js';
import { staleAnswer } from './fallback-answers.js';
import { fallbackPolicies, type FallbackPolicies, type SelectedPolicy } from './policy.js';
import { isSyncDelivery, syncQueue, type QueueForSyncInit } from './sync-queue.js';
import {
  REMOTE_MESH_PEER_EXTENSION,
  REMOTE_PEER_EXTENSION,
  matchPeer,
  parseTarget,
  type RouteTarget,
} from './target.js';
import { transportFor, type RouteTransport } from './transport.js';
import type { RouteTransportSet } from './transport-set.js';

/** Options of {@link routingInvoker}. */
export interface RoutingInvokerInit {
  /** The transports, asked in order: a fixed list, or a set faces add to later. */
  readonly transports: readonly RouteTransport[] | RouteTransportSet;
  /** The configured peers' base URLs (normalised), for http(s) targets. @default [] */
  readonly peerUrls?: readonly string[];
  /** The fallback policies. @default only `default: [error]` */
  readonly policies?: FallbackPolicies;
  /** The node's event log (routing events, the answer cache). */
  readonly log: EventLog;
  /** Snapshots of the answer cache. @default none */
  readonly snapshots?: SnapshotStore;
  /** The runtime, for `queue-for-sync` (looked up when needed). */
  readonly runtime?: () => Pick<Runtime, 'submit'>;
  /** The node id, the `from` of fallback answers. @default 'plexus' */
  readonly nodeId?: string;
  /** Bounds of the delivery loop. */
  readonly queue?: QueueForSyncInit;
  /** How to wait between delivery attempts. @default an abortable setTimeout */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly logger?: Logger;
  /** Counts `routing.fallbacks` {policy, step} (seed 002 §7.2 `transport_fallbacks_total`). @default none */
  /** Fallback counts; a span (`routing.forward`, a CLIENT span) per hop when it traces. */
  readonly observer?: Pick<Observer, 'count'> & Partial<Pick<Observer, 'span'>>;
}

/** The error an error answer carries (for the hop's span). */
function errorOfAnswer(answer: Envelope): PlexusError {
  const data = answer.data;
  const code = isJsonObject(data) && typeof data['code'] === 'string' ? data['code'] : 'INTERNAL';
  const message =
    isJsonObject(data) && typeof data['message'] === 'string'
      ? data['message']
      : 'the peer answered with an error';
  return PlexusError.fromData({ code: code as ErrorData['code'], message, retryable: false });
}

/** The router: a `RemoteInvoker` with a lifecycle (the answer cache view). */
export interface RoutingInvoker extends RemoteInvoker {
  readonly routes: TargetRoutes;
  /** The answer cache, when a policy uses `local-cache`. */
  readonly cache: ProjectionView<AnswerCacheState> | undefined;
  /** Starts the answer cache view. Idempotent. */
  start(): Promise<void>;
  /** Stops it. Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Creates the router.
 *
 * @throws PlexusError `INVALID_PARAMS` for bad queue bounds.
 * @example
 * const router = routingInvoker({ transports: [httpPeerTransport(…)], peerUrls, policies, log });
 * await router.start();
 * const runtime = createRuntime({ log, remote: router });
 */
export function routingInvoker(init: RoutingInvokerInit): RoutingInvoker {
  const policies = init.policies ?? fallbackPolicies();
  const nodeId = init.nodeId ?? 'plexus';
  const logger = init.logger;
  const peers = new Set(init.peerUrls ?? []);
  const given = init.transports;
  const transports = (): readonly RouteTransport[] => ('list' in given ? given.list() : given);
  const cache = policies.usesCache
    ? projectionView({
        log: init.log,
        projection: answerCacheProjection,
        ...(init.snapshots === undefined ? {} : { snapshots: init.snapshots }),
      })
    : undefined;

  const routes: TargetRoutes = {
    peerOf: (url) => matchPeer(peers, url),
    checkPolicy(envelope) {
      // only a node that can route elsewhere falls back; one with just its local transport
      // (a forwarded request's destination, too) ignores the policy a request names, as before
      // every node had a router
      if (transports().length > 1) policies.select(envelope);
    },
    carries: (target) => transports().some((t) => t.supports(target)),
  };

  const emit = <K extends RoutingEventType>(event: EventInput<EventMap, K>): void => {
    init.log.append([event]).catch((error: unknown) => {
      logger?.warn({ type: event.type, err: toPlexusError(error).message }, 'routing event not recorded');
    });
  };
  const eventOf = <K extends RoutingEventType>(
    type: K,
    envelope: Envelope,
    data: EventMap[K],
    causation?: string,
  ): EventInput<EventMap, K> => ({
    type,
    data,
    ...(causation === undefined ? {} : { causation }),
    ...(envelope.traceparent === undefined ? {} : { trace: envelope.traceparent }),
    ...(envelope.tenantId === undefined ? {} : { tenant: envelope.tenantId }),
  });

  const remember = (request: Envelope, agent: string, answer: Envelope): void => {
    if (cache === undefined || answer.kind !== 'response') return;
    const data = {
      agent,
      at: new Date().toISOString(),
      key: answerKey(request.verb, request.data, request.tenantId),
      output: answer.data,
      verb: request.verb,
    };
    emit(eventOf(ROUTING_EVENTS.answerCached, request, data));
  };

  const send = (
    target: RouteTarget,
    envelope: Envelope,
    card: AgentCard | undefined,
    signal: AbortSignal,
    onProgress?: (data: JsonValue) => void,
  ) => {
    const transport = transportFor(transports(), target);
    return transport.invoke(
      {
        target,
        envelope,
        ...(card === undefined ? {} : { card }),
        ...(onProgress === undefined ? {} : { onProgress }),
      },
      signal,
    );
  };
  /**
   * `send` of `request` as the hop `outgoing(request, to)`, inside a CLIENT span whose id is the
   * hop's (so the peer's spans are its children) under `request`'s span.
   */
  const forward = async (
    target: RouteTarget,
    request: Envelope,
    to: string,
    card: AgentCard | undefined,
    signal: AbortSignal,
    onProgress?: (data: JsonValue) => void,
  ): Promise<Envelope> => {
    const out = outgoing(request, to);
    const span = init.observer?.span?.(
      FORWARD_SPAN,
      {
        agent: to,
        target: target.text,
        ...(target.scheme === 'http' || target.scheme === 'https'
          ? { 'server.address': new URL(target.url).hostname, 'url.full': target.url }
          : {}),
      },
      {
        kind: 'client',
        ...(request.traceparent === undefined ? {} : { parent: request.traceparent }),
        ...(request.tracestate === undefined ? {} : { tracestate: request.tracestate }),
        ...(out.traceparent === undefined ? {} : { self: out.traceparent }),
      },
    );
    if (span === undefined) return send(target, out, card, signal, onProgress);
    try {
      const answer = await send(target, out, card, signal, onProgress);
      span.end(answer.kind === 'error' ? errorOfAnswer(answer) : undefined);
      return answer;
    } catch (error) {
      span.end(toPlexusError(error));
      throw error;
    }
  };
  const queue = syncQueue({
    send,
    record: (type, request, data, causation) => {
      emit(eventOf(type, request, data, causation));
    },
    remember,
    runtime: init.runtime,
    nodeId,
    bounds: init.queue,
    sleep: init.sleep,
    logger,
  });

  const primaryOf = (card: AgentCard): RouteTarget => {
    const meshPeer = card.extensions?.[REMOTE_MESH_PEER_EXTENSION];
    if (typeof meshPeer === 'string') return parseTarget(`p2p://${meshPeer}/${encodeURIComponent(card.id)}`);
    const peer = card.extensions?.[REMOTE_PEER_EXTENSION];
    if (typeof peer !== 'string') {
      throw new PlexusError(
        'PEER_UNAVAILABLE',
        `agent ${card.id} is remote but no peer of this node announces it`,
        {
          details: { agent: card.id },
        },
      );
    }
    return parseTarget(`${peer}/${encodeURIComponent(card.id)}`);
  };

  /** `sentElsewhere`: a fallback target may have received the request (so `first`'s `sent: false` no longer holds). */
  function gaveUp(
    first: PlexusError,
    tried: readonly string[],
    policy: SelectedPolicy,
    sentElsewhere: boolean,
  ): PlexusError {
    const details: Record<string, JsonValue> = {};
    for (const [key, value] of Object.entries(first.details ?? {})) {
      if (!(sentElsewhere && key === SENT_DETAIL)) details[key] = value;
    }
    details['policy'] = policy.name;
    details['tried'] = [...tried];
    return new PlexusError(
      first.code,
      `${first.message}; fallback policy ${JSON.stringify(policy.name)} tried: ${tried.join('; ')}; giving up`,
      { retryable: first.retryable, cause: first, details },
    );
  }

  async function fallBack(
    card: AgentCard,
    request: Envelope,
    primary: RouteTarget,
    first: PlexusError,
    signal: AbortSignal,
    context: RemoteCallContext | undefined,
  ): Promise<Envelope> {
    const policy = policies.select(request);
    const tried = [`${primary.text}: ${first.code}`];
    let sentElsewhere = false;
    const reason = `${primary.text} could not be reached (${first.code})`;
    for (const step of policy.steps) {
      if (signal.aborted) throw toPlexusError(signal.reason);
      init.observer?.count(FALLBACK_COUNT, {
        policy: policy.name,
        step: step.name,
        // the transport left and the one tried (a target step: its first target's scheme)
        from_transport: primary.scheme,
        to_transport: step.kind === 'targets' ? (step.targets[0]?.scheme ?? 'none') : step.kind,
      });
      switch (step.kind) {
        case 'error':
          throw gaveUp(first, [...tried, 'error'], policy, sentElsewhere);
        case 'local-cache': {
          const hit = cache?.state().get(answerKey(request.verb, request.data, request.tenantId));
          if (hit === undefined) {
            tried.push('local-cache: no answer cached for this tenant, verb and input');
            break;
          }
          emit(
            eventOf(
              ROUTING_EVENTS.answerServedStale,
              request,
              {
                at: new Date().toISOString(),
                cachedAt: hit.at,
                job: context?.jobId ?? null,
                request: request.id,
              },
              context?.jobId,
            ),
          );
          return staleAnswer(request, nodeId, hit, reason);
        }
        case 'queue-for-sync':
          try {
            return await queue.enqueue(request, primary, reason, context);
          } catch (error) {
            tried.push(`queue-for-sync: ${toPlexusError(error).message}`);
          }
          break;
        case 'targets':
          for (const target of step.targets) {
            try {
              const to =
                target.scheme === 'local' && target.agent !== undefined
                  ? target.agent
                  : capabilitySelector(request.verb);
              const answer = await forward(target, request, to, undefined, signal, context?.progress);
              remember(request, to, answer);
              return answer;
            } catch (error) {
              const failure = toPlexusError(error);
              if (isAborted(signal)) throw failure;
              if (!wasNeverSent(failure)) sentElsewhere = true;
              tried.push(`${step.name} ${target.text}: ${failure.code}`);
            }
          }
          break;
      }
    }
    throw gaveUp(first, tried, policy, sentElsewhere);
  }

  return {
    routes,
    cache,
    reaches(card) {
      try {
        const primary = primaryOf(card);
        return transports().some((t) => t.supports(primary));
      } catch {
        return false;
      }
    },
    async invoke(card, envelope, signal, context) {
      const primary = primaryOf(card);
      if (isSyncDelivery(envelope)) return queue.deliver(primary, envelope, card, signal, context);
      try {
        const answer = await forward(primary, envelope, card.id, card, signal, context?.progress);
        remember(envelope, card.id, answer);
        return answer;
      } catch (error) {
        const failure = toPlexusError(error);
        if (!isDeliveryFailure(failure, signal)) throw failure;
        return fallBack(card, envelope, primary, failure, signal, context);
      }
    },
    async start() {
      await cache?.start();
    },
    async stop() {
      await cache?.stop();
    },
  };
}
