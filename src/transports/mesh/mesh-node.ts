/**
 * The mesh of one node (issue 15 items 1–4): its libp2p peer, the gossip topics it serves
 * with their validator and score parameters, capability gossip, DHT discovery (mesh-dht.ts),
 * bootstrap and known peers.
 * Made by the mesh face; started once the node listens, stopped with it.
 */
import { PlexusError, toPlexusError } from '../../core/errors.js';
import type { JsonObject, JsonValue } from '../../core/json.js';
import { silentLogger } from '../../core/logger.js';
import { RUNTIME_EVENTS } from '../../runtime/index.js';
import {
  envelopeVerifier,
  identityFromPublicKey,
  keyPairFromSeed,
  signEnvelope,
  type Ed25519KeyPair,
} from '../../security/index.js';
import type { FaceComponents } from '../face-components.js';
import { capabilityGossip, type CapabilityGossip, type CapabilityMessage } from './capability-gossip.js';
import { gossipValidator, type GossipValidator } from './gossip-validator.js';
import { receivedSpan, tracedPublication } from './gossip-trace.js';
import { readKnownPeers, rememberPeer, writeKnownPeers, type KnownPeer } from './known-peers.js';
import type { MeshLibp2p } from './mesh-peer.js';
import { attachMeshDht, type MeshDht } from './mesh-dht.js';
import { watchGraylist, type GraylistWatch } from './graylist-watch.js';
import { MESH_SCORE_THRESHOLDS, scoreTopic } from './mesh-scoring.js';
import { CAPABILITIES_PREFIX, capabilitiesTopic, isMeshTopic } from './mesh-topics.js';
import { isTrajectoryTopic, trajectoryProblem } from './trajectory-gossip.js';
import { trajectoryTopic, type TrajectoryPublisher } from '../../primitives/improving/index.js';
import { redialCandidates, redialIntervalMs, redialRound } from './redial.js';
import { geoProblem } from '../../runtime/index.js';
import { TOOL_EVENTS, toolRegistryProjection } from '../../primitives/tool/index.js';
import { projectionView, type ProjectionView } from '../../store/projection-view.js';
import { capabilityClaimsProblem } from './capability-gossip.js';
import { ownPeerCard, peerCardSource } from './peer-card.js';

/** How long a peer's latency, read from its connections, is reused (ms). */
const LATENCY_FRESH_MS = 1000;
/** Peers whose latency is remembered at once (beyond, the memory starts over). */
const MAX_LATENCIES = 4096;

/** The options of the mesh (the `mesh:` section of plexus.yaml). */
export interface MeshOptions {
  /** Listen multiaddrs. @default ['/ip4/127.0.0.1/tcp/0'] */
  readonly listen?: readonly string[];
  /** Addresses to announce instead of the listen addresses. @default [] */
  readonly announce?: readonly string[];
  /** Peers dialled at start (multiaddrs ending in `/p2p/<peerId>`). @default [] */
  readonly bootstrap?: readonly string[];
  /** Capability heartbeat, ms. @default 30000 */
  readonly heartbeatMs?: number;
  /** A remote card not refreshed within this is removed, ms. @default 300000 */
  readonly ttlMs?: number;
  /** The largest gossip message, bytes. @default 65536 */
  readonly maxMessageBytes?: number;
  /** The longest DHT lookup of a capability no card offers, ms (MESH-20). @default 2000 */
  readonly discoveryTimeoutMs?: number;
  /**
   * Follow the capability topics of other peers. `false`: this node takes no gossiped cards and
   * finds remote agents through the DHT only (its own cards are still gossiped). @default true
   */
  readonly followCapabilities?: boolean;
  /**
   * Publish the trajectories `improving.recordTrajectory` records (PII-redacted, tenant-less
   * only) on `hyperspace/trajectories/{taskType}` (seed 003 §9.3: opt-in). Trajectories of the
   * task types the node follows are received either way (MESH-29…31). @default false
   */
  readonly shareTrajectories?: boolean;
  /**
   * This node's region (`us-east`), announced in its peer card (MESH-43): `tool.discover`'s
   * `geo` filter matches its agents' verbs and tools by it. @default none
   */
  readonly geo?: string;
  /**
   * A `/plexus/rpc/1.1.0` stream with no call in flight for this long is closed by this node,
   * ms; 0 never closes one (MESH-49). @default 120000
   */
  readonly rpcIdleTimeoutMs?: number;
}

/** The defaults of {@link MeshOptions}. */
export const MESH_DEFAULTS = {
  listen: ['/ip4/127.0.0.1/tcp/0'],
  heartbeatMs: 30_000,
  ttlMs: 300_000,
  maxMessageBytes: 64 * 1024,
  discoveryTimeoutMs: 2000,
} as const;

/** The topics the node subscribes to besides capability topics. */
export const STATIC_TOPICS = ['hyperspace/crdt/sync/memory'] as const;

/** One connected peer, as `GET /v1/mesh` shows it. */
export interface MeshPeerStatus {
  readonly peerId: string;
  readonly addresses: readonly string[];
  /** Round-trip time of a ping now, ms; null when the ping failed. */
  readonly latencyMs: number | null;
  /** Its gossipsub score on this node. */
  readonly score: number;
  /** True when its score is below the graylist threshold: everything it sends is ignored. */
  readonly graylisted: boolean;
  /** How many of this node's topic meshes it is in (a graylisted peer is dropped from all). */
  readonly meshTopics: number;
  /** RPCs it sent that were ignored unread because it was graylisted, since start. */
  readonly ignored: number;
}

/** What `GET /v1/mesh` shows. */
export interface MeshStatus {
  readonly peerId: string;
  readonly addresses: readonly string[];
  readonly peers: readonly MeshPeerStatus[];
  readonly topics: readonly { readonly topic: string; readonly meshPeers: number }[];
  /** Gossip messages the validator accepted since start. */
  readonly accepted: number;
  /** Gossip messages the validator rejected since start. */
  readonly rejected: number;
  /** Valid gossip messages ignored since start because they were signed before it (MESH-32). */
  readonly stale: number;
  /** Gossip messages ignored unread since start, their senders being graylisted. */
  readonly ignored: number;
  /** The score thresholds peers are judged by (MESH-26). */
  readonly scoreThresholds: {
    readonly gossip: number;
    readonly publish: number;
    readonly graylist: number;
  };
}

/** What gossipsub 17's class has beside its interface: scores and mesh membership. */
interface GossipsubIntrospection {
  getScore(peerId: string): number;
  getMeshPeers(topic: string): string[];
}

/** The running mesh. */
export interface MeshNode {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** @throws PlexusError `UNAVAILABLE` when not started. */
  status(): Promise<MeshStatus>;
  /** This node's PeerId (known before start). */
  readonly peerId: string | undefined;
  /** The running libp2p peer (protocols such as `/plexus/rpc/1.0.0` are handled on it). */
  readonly libp2p: MeshLibp2p | undefined;
}

/** Creates the mesh of a node from its face components. */
export function meshNode(components: FaceComponents, options: MeshOptions = {}): MeshNode {
  const logger = components.logger ?? silentLogger;
  const heartbeatMs = options.heartbeatMs ?? MESH_DEFAULTS.heartbeatMs;
  const ttlMs = options.ttlMs ?? MESH_DEFAULTS.ttlMs;
  const maxMessageBytes = options.maxMessageBytes ?? MESH_DEFAULTS.maxMessageBytes;
  if (options.geo !== undefined) {
    const problem = geoProblem(options.geo);
    if (problem !== undefined) throw new PlexusError('INVALID_PARAMS', `mesh.geo: ${problem}`);
  }
  /** The ping round trip measured to each peer when it was identified, ms (MESH-43). */
  const pinged = new Map<string, number>();
  let tools: ProjectionView<ReturnType<typeof toolRegistryProjection.initial>> | undefined;
  let unplugPeers: (() => void) | undefined;
  let peer: MeshLibp2p | undefined;
  let key: Ed25519KeyPair | undefined;
  let peerId: string | undefined;
  let lifetime = new AbortController();
  const timers: NodeJS.Timeout[] = [];
  const background = new Set<Promise<unknown>>();
  const subscribed = new Set<string>();
  /** The verdicts on the messages the validator accepted, by gossipsub message object (MESH-48). */
  const verified = new WeakMap<object, { readonly signer: string; readonly payload: JsonValue }>();
  let rejected = 0;
  let stale = 0;
  let accepted = 0;
  let known: KnownPeer[] = [];
  let gossip: CapabilityGossip | undefined;
  let validator: GossipValidator | undefined;
  let dht: MeshDht | undefined;
  let graylist: GraylistWatch | undefined;
  let detachTrajectories: (() => void) | undefined;

  const track = (work: Promise<unknown>): void => {
    const p = work.catch((error: unknown) => {
      if (!lifetime.signal.aborted) logger.warn({ err: toPlexusError(error).message }, 'mesh task failed');
    });
    background.add(p);
    void p.finally(() => background.delete(p));
  };

  /** Runs `work` at most once at a time; a request while it runs runs it once more after. */
  const coalesced = (work: () => Promise<void>): (() => void) => {
    let running = false;
    let again = false;
    const run = (): void => {
      if (running) {
        again = true;
        return;
      }
      running = true;
      track(
        work().finally(() => {
          running = false;
          if (again && !lifetime.signal.aborted) {
            again = false;
            run();
          }
        }),
      );
    };
    return run;
  };

  /**
   * Signs `message` for `topic` and publishes it; resolves how many peers it was sent to (0
   * when the mesh is stopped).
   * @throws PlexusError `INPUT_TOO_LARGE` over `maxMessageBytes` (nothing is sent); gossipsub's
   *   publish errors.
   */
  async function publishSigned(topic: string, message: JsonValue, what: string): Promise<number> {
    if (peer === undefined || key === undefined || lifetime.signal.aborted) return 0;
    // OBS-17: a change goes out in a PRODUCER span whose traceparent the signed message carries
    const { payload, span } = tracedPublication(components.tracing, topic, message);
    const signed = signEnvelope(payload, { key, domain: topic, from: 'peerId' });
    const bytes = new TextEncoder().encode(JSON.stringify(signed));
    if (bytes.byteLength > maxMessageBytes) {
      const failure = new PlexusError(
        'INPUT_TOO_LARGE',
        `the ${what} is ${bytes.byteLength} bytes signed, over mesh.maxMessageBytes (${maxMessageBytes}); it was not sent`,
      );
      span?.end(failure);
      throw failure;
    }
    span?.set?.({ 'messaging.message.body.size': bytes.byteLength });
    try {
      const { recipients } = await peer.services.pubsub.publish(topic, bytes);
      span?.end();
      return recipients.length;
    } catch (error) {
      span?.end(toPlexusError(error));
      throw error;
    }
  }

  async function publishOn(topic: string, message: CapabilityMessage): Promise<void> {
    try {
      await publishSigned(topic, message as unknown as JsonValue, 'capability message');
    } catch (error) {
      const failure = toPlexusError(error);
      if (failure.code !== 'INPUT_TOO_LARGE') throw error;
      logger.warn({ topic, err: failure.message }, 'capability message not sent; raise mesh.maxMessageBytes');
    }
  }

  /** MESH-29: the trajectory publisher the improving primitive uses when the node shares. */
  const trajectoryPublisher: TrajectoryPublisher = {
    async publish(topic: string, message: JsonObject) {
      if (!isMeshTopic(topic)) {
        throw new PlexusError(
          'INVALID_PARAMS',
          `"${topic}" cannot be a gossip topic (a task type to share has letters, digits and . _ : - only)`,
        );
      }
      subscribe(topic);
      return publishSigned(topic, message, 'trajectory');
    },
  };

  function subscribe(topic: string): void {
    if (peer === undefined || subscribed.has(topic) || !isMeshTopic(topic)) return;
    subscribed.add(topic);
    const { pubsub } = peer.services;
    if (!scoreTopic(pubsub, topic))
      logger.warn({ topic }, 'gossipsub score table not found; invalid messages are not scored');
    pubsub.topicValidators.set(topic, (from, msg) => {
      // MESH-48: gossipsub signs nothing (a signed message never gets here); the envelope's
      // signer is the originator, the forwarding peer (`from`) is who gossipsub scores
      if (validator === undefined) {
        rejected += 1;
        return 'reject' as never;
      }
      const verdict = validator.validate(msg.topic, msg.data);
      if (verdict.result === 'accept') {
        accepted += 1;
        // the message event that follows gets this very object: its payload is not parsed twice
        verified.set(msg, { signer: verdict.signer.peerId, payload: verdict.envelope.d });
        return 'accept' as never;
      }
      if (verdict.result === 'ignore') {
        stale += 1;
        logger.debug?.(
          { topic, forwarder: from.toString(), code: verdict.code, why: verdict.reason },
          'gossip ignored',
        );
        return 'ignore' as never;
      }
      rejected += 1;
      logger.info(
        { topic, forwarder: from.toString(), code: verdict.code, why: verdict.reason },
        'gossip rejected',
      );
      return 'reject' as never;
    });
    pubsub.subscribe(topic);
  }

  const sendFull = coalesced(async () => gossip?.publishFull('full'));
  const sendDelta = coalesced(async () => gossip?.publishDelta());
  const saveKnown = coalesced(async () => {
    if (components.dataDir !== undefined) await writeKnownPeers(components.dataDir, known);
  });

  async function watchRegistry(signal: AbortSignal): Promise<void> {
    const { seq } = await components.log.head({ signal });
    const types = [
      RUNTIME_EVENTS.agentRegistered,
      RUNTIME_EVENTS.agentUpdated,
      RUNTIME_EVENTS.agentRemoved,
      TOOL_EVENTS.registered,
    ];
    const events = components.log.subscribe(seq, { type: types }, { signal });
    for await (const event of events) {
      if (event.type === TOOL_EVENTS.registered) {
        // MESH-46: a registered tool goes out in the peer card once the view has it
        await tools?.waitFor(event.seq, { signal });
        sendDelta();
      } else if (event.type.startsWith('agent.')) {
        sendDelta();
        dht?.localChanged();
      }
    }
  }

  /**
   * Handles an accepted message: `from` is its envelope's signer (MESH-48), `payload` the
   * envelope's `d`, both from the validator's verdict.
   */
  function onMessage(topic: string, from: string, payload: JsonValue, byteLength: number): void {
    if (from === peerId) return;
    const trajectories = components.trajectories;
    const wanted =
      (topic.startsWith(CAPABILITIES_PREFIX) && gossip !== undefined) ||
      (isTrajectoryTopic(topic) && trajectories !== undefined);
    if (!wanted) return;
    if (isTrajectoryTopic(topic)) {
      // MESH-30: validated (envelope and trajectory) before gossipsub accepted it
      track(
        (trajectories?.receive(payload, { peerId: from }) ?? Promise.resolve()).then(
          () => undefined,
          (error: unknown) => {
            logger.info({ topic, from, err: toPlexusError(error).message }, 'gossiped trajectory not added');
          },
        ),
      );
      return;
    }
    if (gossip === undefined) return;
    // OBS-17: applied in a CONSUMER span of the publisher's trace (a new one without a valid traceparent)
    const span = receivedSpan(components.tracing, topic, from, payload, byteLength);
    const applied = gossip.receive(from, payload);
    track(
      span === undefined
        ? applied
        : applied.finally(() => {
            span.end();
          }),
    );
  }

  return {
    get peerId() {
      return peerId;
    },
    get libp2p() {
      return peer;
    },
    async start() {
      const secret = components.nodeSecret?.();
      if (secret === undefined) {
        throw new PlexusError(
          'INVALID_PARAMS',
          'the mesh face needs the node key (FaceComponents.nodeSecret)',
        );
      }
      lifetime = new AbortController();
      key = keyPairFromSeed(secret);
      peerId = identityFromPublicKey(key.publicKey).peerId;
      // MESH-32: the replay cache starts empty, so what was signed before now is not taken.
      validator = gossipValidator({
        verifier: envelopeVerifier(),
        maxMessageBytes,
        notBefore: Date.now(),
        payloadCheck: (topic, d, signer) => {
          if (topic.startsWith(CAPABILITIES_PREFIX)) {
            // MESH-45: forged or out-of-range claims (reputation, region, latency) are rejected
            const reason = capabilityClaimsProblem(d);
            return reason === undefined ? undefined : { code: 'INVALID_PARAMS', reason };
          }
          if (!isTrajectoryTopic(topic)) return undefined;
          const reason = trajectoryProblem(topic, d, signer);
          return reason === undefined ? undefined : { code: 'TRAJECTORY_REJECTED', reason };
        },
      });
      const { createMeshPeer, dialAddress } = await import('./mesh-peer.js');
      peer = await createMeshPeer({
        seed: secret,
        listen: options.listen ?? MESH_DEFAULTS.listen,
        announce: options.announce ?? [],
        maxMessageBytes,
      });
      const started = peer;
      graylist = watchGraylist(started.services.pubsub);
      if (graylist === undefined)
        logger.warn(
          {},
          'gossipsub internals not found; ignored messages of graylisted peers are not counted',
        );
      tools = projectionView({ log: components.log, projection: toolRegistryProjection });
      await tools.start({ signal: lifetime.signal });
      const registered = tools;
      const peerCard = (): JsonObject =>
        ownPeerCard({
          runtime: components.runtime,
          ...(options.geo === undefined ? {} : { geo: options.geo }),
          tools: () => registered.state().tools.values(),
        });
      gossip = capabilityGossip({
        runtime: components.runtime,
        publish: (message) => publishOn(capabilitiesTopic(peerId ?? ''), message),
        peerCard,
        ttlMs,
        logger,
      });
      const held = gossip;
      // MESH-43: the peer cards held, with the latency measured to each peer (never declared)
      // read for every capability call routed among mesh candidates: a peer's latency is looked
      // up among the connections at most once a second (it changes with pings, every few seconds)
      const latencies = new Map<string, { readonly value: number | undefined; readonly at: number }>();
      const latencyOf = (id: string): number | undefined => {
        const now = performance.now();
        const known = latencies.get(id);
        if (known !== undefined && now - known.at < LATENCY_FRESH_MS) return known.value;
        let best: number | undefined;
        for (const c of started.getConnections()) {
          if (c.remotePeer.toString() !== id || typeof c.rtt !== 'number' || !Number.isFinite(c.rtt))
            continue;
          best = best === undefined ? c.rtt : Math.min(best, c.rtt);
        }
        const measured = best ?? pinged.get(id);
        const value = measured === undefined ? undefined : Math.max(0, Math.round(measured));
        if (latencies.size >= MAX_LATENCIES) latencies.clear();
        latencies.set(id, { value, at: now });
        return value;
      };
      unplugPeers = components.runtime.agents.peers.provide(
        peerCardSource(
          (id) => held.peerCard(id),
          () => held.owners().keys(),
          latencyOf,
        ),
      );
      const { pubsub } = started.services;
      pubsub.addEventListener('message', (event) => {
        const msg = event.detail;
        const accepted = verified.get(msg);
        if (accepted !== undefined)
          onMessage(msg.topic, accepted.signer, accepted.payload, msg.data.byteLength);
      });
      pubsub.addEventListener('subscription-change', (event) => {
        for (const { topic, subscribe: on } of event.detail.subscriptions) {
          if (!on || !topic.startsWith(CAPABILITIES_PREFIX)) continue;
          if (topic === capabilitiesTopic(peerId ?? '')) sendFull();
          else if (options.followCapabilities !== false) subscribe(topic);
        }
      });
      started.addEventListener('peer:disconnect', (event) => {
        pinged.delete(event.detail.toString());
      });
      started.addEventListener('peer:identify', (event) => {
        const { peerId: remote, listenAddrs } = event.detail;
        // MESH-43: one ping on the monitor's protocol (MESH-24) gives a latency before the first heartbeat
        track(
          started.services.monitorPing
            .ping(remote, { signal: AbortSignal.any([lifetime.signal, AbortSignal.timeout(5000)]) })
            .then(
              (rtt) => {
                pinged.set(remote.toString(), rtt);
              },
              () => undefined,
            ),
        );
        const addrs = listenAddrs.map((a) => a.toString()).filter((a) => !a.includes('/p2p-circuit'));
        if (addrs.length === 0) return;
        known = rememberPeer(known, { peerId: remote.toString(), addrs });
        saveKnown();
      });
      dht = await attachMeshDht({
        peer: started,
        key,
        runtime: components.runtime,
        gossip,
        peerCard, // MESH-50: answered with the cards fetched through the DHT
        timeoutMs: options.discoveryTimeoutMs ?? MESH_DEFAULTS.discoveryTimeoutMs,
        logger,
      });
      subscribe(capabilitiesTopic(peerId));
      for (const topic of STATIC_TOPICS) subscribe(topic);
      detachTrajectories = components.trajectories?.attach({
        follow: (taskType) => {
          subscribe(trajectoryTopic(taskType));
        },
        ...(options.shareTrajectories === true ? { publisher: trajectoryPublisher } : {}),
      });
      const signal = lifetime.signal;
      track(watchRegistry(signal));
      known = components.dataDir === undefined ? [] : await readKnownPeers(components.dataDir);
      const targets = [
        ...(options.bootstrap ?? []),
        ...known.flatMap((k) => k.addrs.map((a) => `${a}/p2p/${k.peerId}`)),
      ];
      for (const address of new Set(targets)) {
        track(
          dialAddress(started, address, signal).catch((error: unknown) => {
            if (!signal.aborted)
              logger.warn({ address, err: toPlexusError(error).message }, 'mesh dial failed');
          }),
        );
      }
      // MESH-34: bootstrap and known peers whose connections were lost are dialled again (the
      // reconnect queue of libp2p gives up after a few tries, and only on DHT-close peers).
      let redialing = false;
      let round = 0;
      const redial = (): void => {
        if (redialing || signal.aborted) return;
        const candidates = redialCandidates(options.bootstrap ?? [], known, peerId ?? '');
        const addresses = redialRound(
          candidates,
          (id) => started.getConnections().some((c) => c.remotePeer.toString() === id),
          round++,
        );
        if (addresses.length === 0) return;
        redialing = true;
        const each = addresses.map((address) =>
          dialAddress(started, address, AbortSignal.any([signal, AbortSignal.timeout(10_000)])).catch(
            (error: unknown) => {
              logger.debug?.({ address, err: toPlexusError(error).message }, 'mesh redial failed');
            },
          ),
        );
        track(
          Promise.all(each).finally(() => {
            redialing = false;
          }),
        );
      };
      timers.push(
        setInterval(redial, redialIntervalMs(heartbeatMs)),
        setInterval(() => {
          track(gossip?.publishFull('heartbeat') ?? Promise.resolve());
        }, heartbeatMs),
        setInterval(
          () => {
            track(gossip?.sweep() ?? Promise.resolve());
          },
          Math.max(50, Math.floor(Math.min(heartbeatMs, ttlMs) / 4)),
        ),
      );
      sendFull();
      logger.info({ peerId, addresses: started.getMultiaddrs().map(String) }, 'mesh peer started');
    },
    async stop() {
      lifetime.abort();
      unplugPeers?.();
      unplugPeers = undefined;
      detachTrajectories?.();
      detachTrajectories = undefined;
      for (const timer of timers.splice(0)) clearInterval(timer);
      const stopping = peer;
      peer = undefined;
      await dht?.detach();
      dht = undefined;
      await Promise.allSettled([...background]);
      await stopping?.stop();
      await tools?.stop();
      tools = undefined;
      pinged.clear();
      subscribed.clear();
    },
    async status() {
      const p = peer;
      if (p === undefined) throw new PlexusError('UNAVAILABLE', 'the mesh is not running');
      const pubsub = p.services.pubsub as unknown as GossipsubIntrospection;
      const connected = p.getPeers();
      const meshOf = new Map<string, number>();
      for (const topic of subscribed) {
        for (const id of pubsub.getMeshPeers(topic)) meshOf.set(id, (meshOf.get(id) ?? 0) + 1);
      }
      const { graylistThreshold, gossipThreshold, publishThreshold } = MESH_SCORE_THRESHOLDS;
      const peers = await Promise.all(
        connected.map(async (remote): Promise<MeshPeerStatus> => {
          let latencyMs: number | null = null;
          try {
            // on the heartbeat's protocol (MESH-24), which has room for overlapping pings: on
            // /ipfs/ping/1.0.0 (one stream per connection) it could refuse kad-dht's contact check
            latencyMs = await p.services.monitorPing.ping(remote, { signal: AbortSignal.timeout(2000) });
          } catch {
            latencyMs = null;
          }
          const id = remote.toString();
          const score = pubsub.getScore(id);
          return {
            peerId: id,
            addresses: p.getConnections(remote).map((c) => c.remoteAddr.toString()),
            latencyMs,
            score,
            graylisted: score < graylistThreshold,
            meshTopics: meshOf.get(id) ?? 0,
            ignored: graylist?.ignoredFrom(id) ?? 0,
          };
        }),
      );
      return {
        peerId: p.peerId.toString(),
        addresses: p.getMultiaddrs().map(String),
        peers: peers.sort((a, b) => (a.peerId < b.peerId ? -1 : 1)),
        topics: [...subscribed]
          .sort()
          .map((topic) => ({ topic, meshPeers: pubsub.getMeshPeers(topic).length })),
        accepted,
        rejected,
        stale,
        ignored: graylist?.ignoredMessages ?? 0,
        scoreThresholds: { gossip: gossipThreshold, publish: publishThreshold, graylist: graylistThreshold },
      };
    },
  };
}
