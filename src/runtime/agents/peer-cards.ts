/**
 * Peer cards (seed 003 §2.4; docs/decisions/mesh.md MESH-43): what a mesh peer says about
 * itself beside its agent cards — `peerId`, `tools[]` (its registered tools), `taskTypes[]`,
 * `reputation` and `geo` — plus the `latency` THIS node measured to it (ping round trip, never
 * taken from the peer). The mesh face plugs a {@link PeerCardSource} into the runtime's
 * {@link PeerCardsPort} while its peer runs; the router's ranking and the tool primitive read it.
 *
 * Everything but `latencyMs` is a claim of the peer, signed by it: checked for type and range at
 * the gossip boundary ({@link peerCardProblem}), and weighed as a prior only (agent-outcomes.ts).
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.js';

/** The card extension an agent card may name its region in (`us-east`). */
export const GEO_EXTENSION = '_x_plexus_geo';

/** A region: words of letters and digits joined by `-` (`us`, `us-east`, `eu-west-1`), ≤ 64 characters. */
const GEO_PATTERN = /^[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*$/;
/** The longest region name. */
export const GEO_MAX_LENGTH = 64;
/** Most registered tools one peer card may list. */
export const PEER_CARD_MAX_TOOLS = 256;
/** Most task types one peer card may list. */
export const PEER_CARD_MAX_TASK_TYPES = 256;

/** A tool registered on a mesh peer (`tool.register` there), as its peer card lists it. */
export interface PeerTool {
  /** Its id on the owning peer. */
  readonly toolId: string;
  readonly name: string;
  readonly description: string;
  readonly capabilities: readonly string[];
  readonly schema: { readonly input: JsonValue; readonly output: JsonValue };
  /** Its region, when it names one. */
  readonly geo?: string;
}

/** What a mesh peer says about itself, and the latency this node measured to it. */
export interface PeerCard {
  readonly peerId: string;
  /** Its self-declared reputation, 0…1 (a claim: see agent-outcomes.ts). */
  readonly reputation?: number;
  /** Its region. */
  readonly geo?: string;
  /** The task types (verbs) it serves. */
  readonly taskTypes: readonly string[];
  /** Its registered tools. */
  readonly tools: readonly PeerTool[];
  /** The ping round trip this node measured to it, ms; absent before the first measurement. */
  readonly latencyMs?: number;
}

/** Where the runtime finds peer cards (the running mesh). */
export interface PeerCardSource {
  /** The card of `peerId`, when this node holds one (or a measured latency to it). */
  card(peerId: string): PeerCard | undefined;
  /** Every peer card held now. */
  cards(): readonly PeerCard[];
}

/** The runtime's port: a source plugs in; readers ask. */
export interface PeerCardsPort extends PeerCardSource {
  /** Plugs `source` in (the last plugged answers); returns the function that unplugs it. */
  provide(source: PeerCardSource): () => void;
}

/** Creates an empty port (no card until a source plugs in). */
export function peerCardsPort(): PeerCardsPort {
  const sources: PeerCardSource[] = [];
  return {
    provide(source) {
      sources.push(source);
      return () => {
        const at = sources.indexOf(source);
        if (at >= 0) sources.splice(at, 1);
      };
    },
    card: (peerId) => sources.at(-1)?.card(peerId),
    cards: () => sources.at(-1)?.cards() ?? [],
  };
}

/** Why `value` is not a region name, or `undefined` when it is one. */
export function geoProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'a region must be a string (e.g. "us-east")';
  if (value.length === 0 || value.length > GEO_MAX_LENGTH || !GEO_PATTERN.test(value)) {
    return `the region ${JSON.stringify(value.slice(0, 80))} is not letters and digits joined by "-", at most ${GEO_MAX_LENGTH} characters (e.g. "us-east")`;
  }
  return undefined;
}

/** Why `value` is not a reputation (a finite number within 0…1), or `undefined`. */
export function reputationProblem(value: unknown): string | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 1
    ? undefined
    : `a reputation must be a number within 0…1, got ${typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : String(value).slice(0, 40)}`;
}

const text = (v: unknown, max: number): boolean => typeof v === 'string' && v.length > 0 && v.length <= max;

function toolProblem(raw: JsonValue, at: number): string | undefined {
  if (!isJsonObject(raw)) return `tools[${at}] must be an object`;
  const known = new Set(['toolId', 'name', 'description', 'capabilities', 'schema', 'geo']);
  const extra = Object.keys(raw).find((k) => !known.has(k));
  if (extra !== undefined) return `tools[${at}] has an unknown field ${JSON.stringify(extra.slice(0, 40))}`;
  if (!text(raw['toolId'], 128)) return `tools[${at}].toolId must be a string of 1…128 characters`;
  if (!text(raw['name'], 128)) return `tools[${at}].name must be a string of 1…128 characters`;
  const description = raw['description'];
  if (typeof description !== 'string' || description.length > 4000)
    return `tools[${at}].description must be a string of at most 4000 characters`;
  const caps = raw['capabilities'];
  if (!Array.isArray(caps) || caps.length > 64 || !caps.every((c) => text(c, 64)))
    return `tools[${at}].capabilities must be at most 64 strings of 1…64 characters`;
  const schema = raw['schema'];
  const schemaValue = (v: unknown): boolean => typeof v === 'boolean' || isJsonObject(v);
  if (!isJsonObject(schema) || !schemaValue(schema['input']) || !schemaValue(schema['output']))
    return `tools[${at}].schema must be {input, output}, each a JSON Schema`;
  if (raw['geo'] !== undefined) {
    const problem = geoProblem(raw['geo']);
    if (problem !== undefined) return `tools[${at}].geo: ${problem}`;
  }
  return undefined;
}

/**
 * Why a peer card as announced (`{reputation?, geo?, taskTypes?, tools?}`, without `peerId` or
 * `latencyMs`, which the receiver sets) is refused, or `undefined` when it is well-formed.
 * A `latencyMs` in it is refused: latency is measured by the receiver, never declared.
 */
export function peerCardProblem(value: JsonValue): string | undefined {
  if (!isJsonObject(value)) return 'the peer card must be an object';
  const known = new Set(['reputation', 'geo', 'taskTypes', 'tools']);
  if ('latencyMs' in value || 'latency' in value)
    return 'the peer card declares a latency; latency is measured by the receiving node, never declared';
  const extra = Object.keys(value).find((k) => !known.has(k));
  if (extra !== undefined) return `the peer card has an unknown field ${JSON.stringify(extra.slice(0, 40))}`;
  if (value['reputation'] !== undefined) {
    const problem = reputationProblem(value['reputation']);
    if (problem !== undefined) return `peer card: ${problem}`;
  }
  if (value['geo'] !== undefined) {
    const problem = geoProblem(value['geo']);
    if (problem !== undefined) return `peer card: ${problem}`;
  }
  const types = value['taskTypes'] ?? [];
  if (!Array.isArray(types) || types.length > PEER_CARD_MAX_TASK_TYPES || !types.every((t) => text(t, 256)))
    return `peer card: taskTypes must be at most ${PEER_CARD_MAX_TASK_TYPES} strings of 1…256 characters`;
  const tools = value['tools'] ?? [];
  if (!Array.isArray(tools) || tools.length > PEER_CARD_MAX_TOOLS)
    return `peer card: tools must be a list of at most ${PEER_CARD_MAX_TOOLS}`;
  for (const [at, tool] of tools.entries()) {
    const problem = toolProblem(tool, at);
    if (problem !== undefined) return `peer card: ${problem}`;
  }
  return undefined;
}

/**
 * Why the region an announced agent card names (`extensions._x_plexus_geo`) is refused, or
 * `undefined` (none named, or a well-formed one).
 */
export function cardGeoProblem(card: JsonObject): string | undefined {
  const extensions = card['extensions'];
  if (extensions === undefined || !isJsonObject(extensions)) return undefined;
  const geo = extensions[GEO_EXTENSION];
  if (geo === undefined) return undefined;
  const problem = geoProblem(geo);
  return problem === undefined ? undefined : `card ${JSON.stringify(card['id'])}: ${problem}`;
}

/** A well-formed announced peer card of `peerId`, with the latency this node measured. */
export function peerCardOf(peerId: string, value: JsonObject, latencyMs?: number): PeerCard {
  const tools = (Array.isArray(value['tools']) ? value['tools'] : []) as unknown as PeerTool[];
  const types = (Array.isArray(value['taskTypes']) ? value['taskTypes'] : []) as string[];
  return {
    peerId,
    ...(typeof value['reputation'] === 'number' ? { reputation: value['reputation'] } : {}),
    ...(typeof value['geo'] === 'string' ? { geo: value['geo'] } : {}),
    taskTypes: types,
    tools,
    ...(latencyMs === undefined ? {} : { latencyMs }),
  };
}
