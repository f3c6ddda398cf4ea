/**
 * The Hyperspace memory primitive (seed 003 §4.4): vector-embedded memories in two tiers
 * (`working`, `archival`), placed on a consistent-hash ring (750 virtual nodes a peer,
 * replication 3, SHA-256), searched by cosine similarity through an approximate index.
 *
 * Every change is an event (`memory.stored`, `memory.deleted`, `memory.archived`); reads
 * come from the `memory.memories` projection and the derived `memory.index` view, both
 * rebuilt from the log at start. Memories belong to the tenant that stored them: another
 * tenant's memory is not found, listed or searched.
 */
import { randomBytes } from 'node:crypto';
import { PlexusError } from '../../core/errors.js';
import type { JsonObject } from '../../core/json.js';
import type { HandlerContext } from '../../runtime/index.js';
import type { Projection } from '../../store/projection.js';
import { projectionView } from '../../store/projection-view.js';
import { keyedLock } from '../keyed-lock.js';
import { definePrimitive, type Primitive, type PrimitiveComponents } from '../primitive.js';
import type { Embedder } from './embedder.js';
import type { HashRingInit } from './hash-ring.js';
import { hashedEmbedder } from './hashed-embedder.js';
import { memoryIndexProjection, type MemoryIndexOptions } from './memory-index-projection.js';
import { memoryPlacement, type MemoryPeers, type MemoryPlacement } from './memory-placement.js';
import {
  MEMORY_EVENTS,
  memoriesProjection,
  sessionKey,
  type MemoryRecord,
  type MemoryStoredData,
  type MemoryTier,
} from './memory-projection.js';
import {
  ARCHIVE_OUTPUT,
  DELETE_OUTPUT,
  GET_OUTPUT,
  ID_INPUT,
  LIST_INPUT,
  LIST_OUTPUT,
  SEARCH_INPUT,
  SEARCH_OUTPUT,
  STORE_INPUT,
  STORE_OUTPUT,
} from './memory-schemas.js';
import type { VectorIndex } from './vector-index.js';
import { encodeVector, normalizeInPlace } from './vector-math.js';

/** What the memory primitive needs beside the log. */
export interface MemoryComponents extends PrimitiveComponents {
  /** This node's peer id (the `peerId` of the memories it holds). @default 'local' */
  readonly peerId?: string;
  /** The mesh's other peers; none on a single node. */
  readonly peers?: MemoryPeers;
}

/** Options of the memory primitive. */
export interface MemoryInit {
  /** The embedder. @default hashedEmbedder() (offline, 256 dimensions) */
  readonly embedder?: Embedder;
  /** The hash ring's sizes. @default { virtualNodes: 750, replication: 3 } */
  readonly ring?: Omit<HashRingInit, 'peers'>;
  /** Tuning of the ANN index. */
  readonly index?: MemoryIndexOptions;
  /** Largest `metadata` (its JSON text) `store` accepts. @default 16384 */
  readonly maxMetadataLength?: number;
  /** Results of `search` without `limit`. @default 10 */
  readonly defaultLimit?: number;
  /** Page size of `list` without `limit`. @default 50 */
  readonly defaultListLimit?: number;
}

/** The memory primitive, with its search machinery for benchmarks and diagnostics. */
export interface MemoryPrimitive extends Primitive {
  readonly embedder: Embedder;
  readonly placement: MemoryPlacement;
  /** The ANN index the `search` verb uses (undefined before the first indexed memory). */
  searchIndex(): VectorIndex | undefined;
}

/** The projections of the memory primitive (for `plexus replay --verify`). */
export const MEMORY_PROJECTIONS: readonly Projection<unknown>[] = [memoriesProjection];

const tenantOf = (ctx: HandlerContext): string | null => ctx.envelope.tenantId ?? null;
const round = (x: number, digits: number): number => Math.round(x * 10 ** digits) / 10 ** digits;

/** A memory as the answers show it. */
function memoryItem(r: MemoryRecord): JsonObject {
  return {
    id: r.id,
    content: r.content,
    metadata: r.metadata,
    peerId: r.peerId,
    replicas: [...r.replicas],
    sessionId: r.sessionId,
    tier: r.tier,
    createdAt: r.createdAt,
    ...(r.archivedAt === undefined ? {} : { archivedAt: r.archivedAt }),
  };
}

/**
 * Creates the memory primitive.
 *
 * @throws PlexusError `INVALID_PARAMS` for bad ring sizes.
 * @example
 * const memory = memoryPrimitive({ log, peerId: node.peerId });
 * const runtime = createRuntime({ log, agents: [memory.agent] });
 */
export function memoryPrimitive(components: MemoryComponents, init: MemoryInit = {}): MemoryPrimitive {
  const { log } = components;
  const now = components.now ?? Date.now;
  const self = components.peerId ?? 'local';
  const embedder = init.embedder ?? hashedEmbedder();
  const carriesVector = !(embedder.deterministic && embedder.embedSync !== undefined);
  const maxMetadataLength = init.maxMetadataLength ?? 16_384;
  const defaultLimit = init.defaultLimit ?? 10;
  const defaultListLimit = init.defaultListLimit ?? 50;
  const memories = projectionView({ log, projection: memoriesProjection });
  const indexView = projectionView({ log, projection: memoryIndexProjection(embedder, init.index) });
  const placement = memoryPlacement({
    self,
    ...(components.peers === undefined ? {} : { peers: components.peers }),
    ...(init.ring === undefined ? {} : { ring: init.ring }),
  });
  const lock = keyedLock();

  const visible = (id: string, ctx: HandlerContext): MemoryRecord | undefined => {
    const r = memories.state().memories.get(id);
    return r !== undefined && r.tenant === tenantOf(ctx) ? r : undefined;
  };
  const require = (id: string, ctx: HandlerContext): MemoryRecord => {
    const r = visible(id, ctx);
    if (r === undefined) {
      throw new PlexusError('NOT_FOUND', `memory not found: no memory ${JSON.stringify(id)}`, {
        details: { id },
      });
    }
    return r;
  };
  const settle = async (seq: number, ctx: HandlerContext): Promise<void> => {
    await memories.waitFor(seq, { signal: ctx.signal });
    await indexView.waitFor(seq, { signal: ctx.signal });
  };
  const embedOne = async (text: string, ctx: HandlerContext): Promise<Float32Array> => {
    const [v] = await embedder.embed([text], { signal: ctx.signal });
    if (v === undefined) throw new PlexusError('INTERNAL', `embedder ${embedder.id} answered no vector`);
    return normalizeInPlace(Float32Array.from(v));
  };

  const primitive = definePrimitive({
    name: 'memory',
    title: 'Hyperspace memory',
    views: [memories, indexView],
    methods: [
      {
        method: 'store',
        description: 'Stores a memory (embedded, placed on the hash ring) and answers its id and owners.',
        input: STORE_INPUT,
        output: STORE_OUTPUT,
        category: 'mutation',
        effects: { writes: ['memory/memories'] },
        async handler(input, ctx) {
          const p = input as {
            content: string;
            sessionId?: string;
            metadata?: JsonObject;
            tier?: MemoryTier;
          };
          const metadata = p.metadata ?? {};
          const length = JSON.stringify(metadata).length;
          if (length > maxMetadataLength) {
            throw new PlexusError(
              'INVALID_PARAMS',
              `metadata is too large: its JSON text has ${length} characters; the limit is ${maxMetadataLength}`,
              {
                details: {
                  problems: [
                    {
                      pointer: '/metadata',
                      message: `must have at most ${maxMetadataLength} characters as JSON`,
                    },
                  ],
                },
              },
            );
          }
          const id = `mem-${randomBytes(8).toString('hex')}`;
          const owners = placement.place(id);
          const tier = p.tier ?? 'working';
          const data: MemoryStoredData = {
            id,
            content: p.content,
            sessionId: p.sessionId ?? null,
            metadata,
            tier,
            peerId: owners.peerId,
            replicas: owners.replicas,
            createdAt: new Date(now()).toISOString(),
            embedder: embedder.id,
            ...(carriesVector ? { vector: encodeVector(await embedOne(p.content, ctx)) } : {}),
          };
          const tenant = tenantOf(ctx);
          const json = data as unknown as JsonObject;
          await placement.replicate(owners, { ...json, tenant }, { signal: ctx.signal });
          const event = await log.append({
            type: MEMORY_EVENTS.stored,
            data,
            ...(tenant === null ? {} : { tenant }),
            ...(ctx.envelope.traceparent === undefined ? {} : { trace: ctx.envelope.traceparent }),
          });
          await settle(event.seq, ctx);
          return { id, peerId: owners.peerId, replicas: [...owners.replicas], tier };
        },
      },
      {
        method: 'search',
        description: 'Finds the memories most similar to a query (cosine), best first, above a threshold.',
        input: SEARCH_INPUT,
        output: SEARCH_OUTPUT,
        category: 'query',
        effects: { reads: ['memory/memories'] },
        async handler(input, ctx) {
          const p = input as {
            query: string;
            sessionId?: string;
            limit?: number;
            threshold?: number;
            tier?: MemoryTier;
          };
          const started = performance.now();
          const query = await embedOne(p.query, ctx);
          const index = indexView.state().index;
          if (index !== undefined && index.dimensions !== query.length) {
            throw new PlexusError(
              'INTERNAL',
              `embedder ${embedder.id} answered ${query.length} dimensions but the memory index has ${index.dimensions}`,
            );
          }
          const hits =
            index?.search(query, {
              limit: p.limit ?? defaultLimit,
              threshold: p.threshold ?? 0,
              tenant: tenantOf(ctx),
              ...(p.sessionId === undefined ? {} : { session: p.sessionId }),
              ...(p.tier === undefined ? {} : { tier: p.tier }),
            }) ?? [];
          const state = memories.state().memories;
          const found: JsonObject[] = [];
          for (const hit of hits) {
            const r = state.get(hit.key);
            if (r !== undefined) found.push({ ...memoryItem(r), similarity: round(hit.similarity, 6) });
          }
          return { memories: found, searchTime: round(performance.now() - started, 3) };
        },
      },
      {
        method: 'get',
        description: 'Answers one memory: its content, metadata and owning peer.',
        input: ID_INPUT,
        output: GET_OUTPUT,
        category: 'query',
        effects: { reads: ['memory/memories'] },
        handler(input, ctx) {
          return Promise.resolve(memoryItem(require((input as { id: string }).id, ctx)));
        },
      },
      {
        method: 'list',
        description: "Pages through a session's memories in the order they were stored.",
        input: LIST_INPUT,
        output: LIST_OUTPUT,
        category: 'query',
        effects: { reads: ['memory/memories'] },
        handler(input, ctx) {
          const p = input as { sessionId: string; limit?: number; offset?: number };
          const state = memories.state();
          const ids = state.bySession.get(sessionKey(tenantOf(ctx), p.sessionId)) ?? [];
          const offset = p.offset ?? 0;
          const page = ids.slice(offset, offset + (p.limit ?? defaultListLimit));
          const items = page.flatMap((id) => {
            const r = state.memories.get(id);
            return r === undefined ? [] : [memoryItem(r)];
          });
          return Promise.resolve({ memories: items, total: ids.length });
        },
      },
      {
        method: 'delete',
        description: 'Deletes a memory; answers whether there was one to delete.',
        input: ID_INPUT,
        output: DELETE_OUTPUT,
        category: 'mutation',
        effects: { deletes: ['memory/memories'] },
        deterministic: true,
        handler(input, ctx) {
          const { id } = input as { id: string };
          return lock.run(id, async () => {
            if (visible(id, ctx) === undefined) return { deleted: false };
            const tenant = tenantOf(ctx);
            const event = await log.append({
              type: MEMORY_EVENTS.deleted,
              data: { id, deletedAt: new Date(now()).toISOString() },
              ...(tenant === null ? {} : { tenant }),
            });
            await settle(event.seq, ctx);
            return { deleted: true };
          });
        },
      },
      {
        method: 'archive',
        description: 'Moves a memory to the archival tier; answers whether it moved.',
        input: ID_INPUT,
        output: ARCHIVE_OUTPUT,
        category: 'mutation',
        effects: { writes: ['memory/memories'] },
        deterministic: true,
        handler(input, ctx) {
          const { id } = input as { id: string };
          return lock.run(id, async () => {
            const r = require(id, ctx);
            if (r.tier === 'archival') return { archived: false, tier: 'archival' };
            const tenant = tenantOf(ctx);
            const event = await log.append({
              type: MEMORY_EVENTS.archived,
              data: { id, archivedAt: new Date(now()).toISOString() },
              ...(tenant === null ? {} : { tenant }),
            });
            await settle(event.seq, ctx);
            return { archived: true, tier: 'archival' };
          });
        },
      },
    ],
  });
  return {
    ...primitive,
    // The index trains and codes itself in background slices once it is large enough
    // (searches meanwhile score the uncoded entries exactly); stopping ends that work.
    async stop() {
      indexView.state().index?.close();
      await primitive.stop();
    },
    embedder,
    placement,
    searchIndex: () => indexView.state().index,
  };
}
