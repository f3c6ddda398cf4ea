/**
 * The learning primitive (seed 003 §5.1): playbooks of context bullets that agents grow by
 * reflecting on their executions (Generator / Reflector / Curator). Six methods —
 * `getPlaybook`, `reflect`, `curate`, `addBullet`, `feedback`, `getStats` — each a verb of
 * one agent `learning`, all state in the `primitives.learning` projection.
 *
 * Writes to one playbook are serialised (a keyed lock per tenant and playbook), so ids,
 * versions and counters never race. The reflector runs inside the lock, once per call; what
 * it proposed is checked, redacted and written into the `learning.reflected` event.
 */
import { PlexusError } from '../../core/errors.js';
import type { JsonValue } from '../../core/json.js';
import type { HandlerContext } from '../../runtime/index.js';
import type { EventInput } from '../../store/event-log.js';
import type { EventMap, EventType } from '../../store/event-map.js';
import { projectionView } from '../../store/projection-view.js';
import { redactPii } from '../guard/pii.js';
import { keyedLock } from '../keyed-lock.js';
import { definePrimitive, type Primitive, type PrimitiveComponents } from '../primitive.js';
import {
  LEARNING_EVENTS,
  learningProjection,
  playbookKey,
  type BulletAddedData,
  type CuratedData,
  type FeedbackGivenData,
  type LearningState,
  type ReflectedData,
} from './learning-projection.js';
import * as S from './learning-schemas.js';
import type { TrainingMode } from './learning-schemas.js';
import {
  PLAYBOOK_SECTIONS,
  bulletId,
  bulletScore,
  curationOrder,
  findDuplicate,
  isHarmful,
  playbookTokens,
  type Bullet,
  type Playbook,
  type PlaybookSection,
} from './playbook.js';
import { checkProposal, verdictOf, type Execution, type Reflector } from './reflector.js';
import { deterministicReflector } from './reflector-deterministic.js';
import { bulletTokens } from './tokens.js';

/** Options of {@link learningPrimitive}. */
export interface LearningInit {
  /** Who reflects on executions. @default deterministicReflector() */
  readonly reflector?: Reflector;
  /** Token budget of `learning.curate` when the call gives no `maxTokens`. @default 4000 */
  readonly maxTokens?: number;
  /** Most bullets one playbook may hold; adding beyond it fails `CONFLICT` (curate first). @default 10000 */
  readonly maxBullets?: number;
}

/** The projections of the learning primitive (for the node and `plexus replay --verify`). */
export const LEARNING_PROJECTIONS = [learningProjection] as const;

interface Ctx {
  readonly tenant: string | undefined;
  readonly context: HandlerContext;
}

function sectionOrder(bullets: Iterable<Bullet>): Bullet[] {
  const list = [...bullets];
  return PLAYBOOK_SECTIONS.flatMap((s) => list.filter((b) => b.section === s));
}

function bulletView(b: Bullet): JsonValue {
  return {
    id: b.id,
    section: b.section,
    content: b.content,
    helpfulCount: b.helpfulCount,
    harmfulCount: b.harmfulCount,
    tokenCount: b.tokenCount,
    createdAt: b.createdAt,
  };
}

function round4(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}

/**
 * Creates the learning primitive.
 *
 * @throws PlexusError `INVALID_PARAMS` for a negative or non-integer `maxTokens` / `maxBullets`.
 * @example
 * const learning = learningPrimitive({ log }, { reflector: openAiChatReflector({ baseUrl, model, apiKey }) });
 * const runtime = createRuntime({ log, agents: [learning.agent] });
 */
export function learningPrimitive(components: PrimitiveComponents, init: LearningInit = {}): Primitive {
  const { log } = components;
  const now = components.now ?? Date.now;
  const reflector = init.reflector ?? deterministicReflector();
  const defaultBudget = init.maxTokens ?? 4000;
  const maxBullets = init.maxBullets ?? 10_000;
  for (const [field, value] of [
    ['maxTokens', defaultBudget],
    ['maxBullets', maxBullets],
  ] as const) {
    if (!Number.isInteger(value) || value < 0) {
      throw new PlexusError('INVALID_PARAMS', `learningPrimitive: ${field} must be a non-negative integer`, {
        details: { field },
      });
    }
  }
  const view = projectionView<LearningState>({ log, projection: learningProjection });
  const lock = keyedLock();

  const ctxOf = (context: HandlerContext): Ctx => ({ tenant: context.envelope.tenantId, context });
  const find = (c: Ctx, playbookId: string): Playbook | undefined =>
    view.state().playbooks.get(playbookKey(c.tenant, playbookId));
  const at = (): string => new Date(now()).toISOString();

  const append = async <K extends EventType>(c: Ctx, type: K, data: EventMap[K]): Promise<void> => {
    const input: EventInput<EventMap, K> = {
      type,
      data,
      causation: c.context.envelope.id,
      ...(c.tenant === undefined ? {} : { tenant: c.tenant }),
      ...(c.context.envelope.traceparent === undefined ? {} : { trace: c.context.envelope.traceparent }),
    };
    const event = await log.append(input);
    await view.waitFor(event.seq);
  };

  const checkRoom = (playbook: Playbook | undefined, adding: number): void => {
    const size = playbook?.bullets.size ?? 0;
    if (size + adding > maxBullets) {
      throw new PlexusError(
        'CONFLICT',
        `playbook ${JSON.stringify(playbook?.playbookId)} is full (${size} of ${maxBullets} bullets); run learning.curate first`,
        { details: { playbookId: playbook?.playbookId ?? null, size, maxBullets } },
      );
    }
  };

  const notFound = (field: string, value: string, what: string): PlexusError =>
    new PlexusError('NOT_FOUND', `${what} ${JSON.stringify(value)} does not exist`, {
      details: { field, value },
    });

  const getPlaybook = (input: JsonValue, context: HandlerContext): JsonValue => {
    const { playbookId } = input as { playbookId: string };
    const playbook = find(ctxOf(context), playbookId);
    if (playbook === undefined) return { bullets: [], version: 0, tokenCount: 0 };
    return {
      bullets: sectionOrder(playbook.bullets.values()).map(bulletView),
      version: playbook.version,
      tokenCount: playbookTokens(playbook.bullets.values()),
    };
  };

  const reflect = (input: JsonValue, context: HandlerContext): Promise<JsonValue> => {
    const params = input as { playbookId: string; execution: Execution; mode?: TrainingMode };
    const { playbookId, execution } = params;
    const mode = params.mode ?? 'online';
    const c = ctxOf(context);
    return lock.run(playbookKey(c.tenant, playbookId), async () => {
      const playbook = find(c, playbookId);
      const existing = playbook === undefined ? [] : [...playbook.bullets.values()];
      const raw = await reflector.reflect(
        {
          playbookId,
          execution,
          bullets: existing.map((b) => ({
            id: b.id,
            section: b.section,
            content: b.content,
            helpfulCount: b.helpfulCount,
            harmfulCount: b.harmfulCount,
          })),
        },
        { signal: context.signal },
      );
      const proposal = checkProposal(raw, reflector.name);
      const verdict = verdictOf(execution);
      const byId = new Map(existing.map((b) => [b.id, b]));
      const used = [...new Set(execution['usedBullets'] as string[] | undefined)].filter((id) =>
        byId.has(id),
      );
      const votes =
        verdict === 'partial' ? [] : used.map((id) => ({ bulletId: id, helpful: verdict === 'success' }));
      const pruned = new Set(proposal.prune.filter((id) => byId.has(id)));
      for (const v of votes) {
        const b = byId.get(v.bulletId);
        if (b === undefined) continue;
        const after = v.helpful
          ? { ...b, helpfulCount: b.helpfulCount + 1 }
          : { ...b, harmfulCount: b.harmfulCount + 1 };
        if (isHarmful(after)) pruned.add(b.id);
      }
      const prunedBullets = existing.filter((b) => pruned.has(b.id)).map((b) => b.id);
      const kept = existing.filter((b) => !pruned.has(b.id));
      const counters = { ...(playbook?.counters ?? { str: 0, cal: 0, mis: 0, fbk: 0 }) };
      const when = at();
      const newBullets: Bullet[] = [];
      for (const p of proposal.newBullets) {
        const content = redactPii(p.content);
        if (findDuplicate([...kept, ...newBullets], p.section, content) !== undefined) continue;
        counters[p.section] += 1;
        const id = bulletId(p.section, counters[p.section]);
        newBullets.push({
          id,
          section: p.section,
          content,
          helpfulCount: 0,
          harmfulCount: 0,
          tokenCount: bulletTokens(id, content),
          source: 'reflection',
          createdAt: when,
        });
      }
      const changed = newBullets.length > 0 || prunedBullets.length > 0 || votes.length > 0;
      const current = playbook?.version ?? 0;
      const version = changed ? current + 1 : current;
      const answer = {
        newBullets: newBullets.map((b) => ({ id: b.id, section: b.section, content: b.content })),
        prunedBullets,
        playbookVersion: mode === 'eval-only' ? current : version,
      };
      if (mode === 'eval-only') return answer;
      checkRoom(playbook, newBullets.length - prunedBullets.length);
      const steps = execution.steps;
      const reward = execution['reward'];
      const data: ReflectedData = {
        playbookId,
        mode,
        reflector: reflector.name,
        execution: {
          outcome: execution.outcome,
          verdict,
          reward: typeof reward === 'number' ? reward : null,
          steps: steps.length,
          duration: steps.reduce(
            (sum, s) => sum + (typeof s['duration'] === 'number' ? s['duration'] : 0),
            0,
          ),
        },
        newBullets,
        prunedBullets,
        votes,
        version,
        at: when,
      };
      await append(c, LEARNING_EVENTS.reflected, data);
      return answer;
    });
  };

  const curate = (input: JsonValue, context: HandlerContext): Promise<JsonValue> => {
    const params = input as { playbookId: string; maxTokens?: number };
    const maxTokens = params.maxTokens ?? defaultBudget;
    const c = ctxOf(context);
    return lock.run(playbookKey(c.tenant, params.playbookId), async () => {
      const playbook = find(c, params.playbookId);
      const bullets = playbook === undefined ? [] : [...playbook.bullets.values()];
      const removed = curationOrder(bullets, maxTokens);
      if (playbook !== undefined && removed.length > 0) {
        const data: CuratedData = {
          playbookId: params.playbookId,
          maxTokens,
          removed,
          version: playbook.version + 1,
          at: at(),
        };
        await append(c, LEARNING_EVENTS.curated, data);
      }
      const gone = new Set(removed);
      const remaining = bullets.filter((b) => !gone.has(b.id));
      return { removed, remaining: remaining.length, tokenCount: playbookTokens(remaining) };
    });
  };

  const addBullet = (input: JsonValue, context: HandlerContext): Promise<JsonValue> => {
    const params = input as { playbookId: string; section: PlaybookSection; content: string };
    const c = ctxOf(context);
    return lock.run(playbookKey(c.tenant, params.playbookId), async () => {
      const playbook = find(c, params.playbookId);
      const content = redactPii(params.content.trim());
      const duplicate =
        playbook === undefined
          ? undefined
          : findDuplicate(playbook.bullets.values(), params.section, content);
      if (duplicate !== undefined) return { bulletId: duplicate.id };
      checkRoom(playbook, 1);
      const id = bulletId(params.section, (playbook?.counters[params.section] ?? 0) + 1);
      const when = at();
      const data: BulletAddedData = {
        playbookId: params.playbookId,
        bullet: {
          id,
          section: params.section,
          content,
          helpfulCount: 0,
          harmfulCount: 0,
          tokenCount: bulletTokens(id, content),
          source: 'manual',
          createdAt: when,
        },
        version: (playbook?.version ?? 0) + 1,
        at: when,
      };
      await append(c, LEARNING_EVENTS.bulletAdded, data);
      return { bulletId: id };
    });
  };

  const feedback = (input: JsonValue, context: HandlerContext): Promise<JsonValue> => {
    const params = input as { playbookId: string; bulletId: string; helpful: boolean };
    const c = ctxOf(context);
    return lock.run(playbookKey(c.tenant, params.playbookId), async () => {
      const playbook = find(c, params.playbookId);
      if (playbook === undefined) throw notFound('playbookId', params.playbookId, 'playbook');
      if (!playbook.bullets.has(params.bulletId)) {
        throw notFound(
          'bulletId',
          params.bulletId,
          `bullet of playbook ${JSON.stringify(params.playbookId)}:`,
        );
      }
      const data: FeedbackGivenData = {
        playbookId: params.playbookId,
        bulletId: params.bulletId,
        helpful: params.helpful,
        version: playbook.version + 1,
        at: at(),
      };
      await append(c, LEARNING_EVENTS.feedbackGiven, data);
      const b = find(c, params.playbookId)?.bullets.get(params.bulletId);
      return { helpfulCount: b?.helpfulCount ?? 0, harmfulCount: b?.harmfulCount ?? 0 };
    });
  };

  const getStats = (input: JsonValue, context: HandlerContext): JsonValue => {
    const { playbookId } = input as { playbookId: string };
    const playbook = find(ctxOf(context), playbookId);
    const bullets = playbook === undefined ? [] : [...playbook.bullets.values()];
    const bySection = { str: 0, cal: 0, mis: 0, fbk: 0 };
    let scores = 0;
    for (const b of bullets) {
      bySection[b.section] += 1;
      scores += bulletScore(b);
    }
    return {
      totalBullets: bullets.length,
      bySection,
      avgScore: bullets.length === 0 ? 0 : round4(scores / bullets.length),
      version: playbook?.version ?? 0,
    };
  };

  return definePrimitive({
    name: 'learning',
    title: 'Hyperspace learning (playbooks)',
    views: [view],
    methods: [
      {
        method: 'getPlaybook',
        description: 'A playbook: its bullets by section, version and token count.',
        input: S.GET_PLAYBOOK_INPUT,
        output: S.GET_PLAYBOOK_OUTPUT,
        category: 'query',
        effects: { reads: ['learning/playbooks'] },
        handler: getPlaybook,
      },
      {
        method: 'reflect',
        description: 'Reflects on a finished execution: new bullets, pruned bullets, the new version.',
        input: S.REFLECT_INPUT,
        output: S.REFLECT_OUTPUT,
        category: 'mutation',
        effects: { reads: ['learning/playbooks'], writes: ['learning/reflections'] },
        handler: reflect,
      },
      {
        method: 'curate',
        description: 'Removes harmful and low-scored bullets until the playbook fits a token budget.',
        input: S.CURATE_INPUT,
        output: S.CURATE_OUTPUT,
        category: 'mutation',
        effects: { reads: ['learning/playbooks'], deletes: ['learning/playbooks'] },
        handler: curate,
      },
      {
        method: 'addBullet',
        description: 'Adds one bullet to a section of a playbook.',
        input: S.ADD_BULLET_INPUT,
        output: S.ADD_BULLET_OUTPUT,
        category: 'mutation',
        effects: { writes: ['learning/playbooks'] },
        handler: addBullet,
      },
      {
        method: 'feedback',
        description: 'Marks a bullet helpful or harmful.',
        input: S.FEEDBACK_INPUT,
        output: S.FEEDBACK_OUTPUT,
        category: 'mutation',
        effects: { writes: ['learning/playbooks'] },
        handler: feedback,
      },
      {
        method: 'getStats',
        description: 'Bullet counts by section, average score and version of a playbook.',
        input: S.GET_STATS_INPUT,
        output: S.GET_STATS_OUTPUT,
        category: 'query',
        effects: { reads: ['learning/playbooks'] },
        handler: getStats,
      },
    ],
  });
}
