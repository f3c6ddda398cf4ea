/**
 * The learning primitive's durable state: every playbook, folded from `learning.*` events
 * (D9). Ids, versions, timestamps, token counts and the reflector's bullets are all decided by
 * the handlers and carried in the events, so the reducer is pure and a rebuild from the log
 * equals the live state byte for byte.
 */
import { isJsonObject, type JsonValue } from '../../core/json.js';
import type { Event } from '../../core/records/event.js';
import type { Projection } from '../../store/projection.js';
import { emptyPlaybook, parseBulletId, type Bullet, type Playbook } from './playbook.js';
import { eventOf, type EventType } from '../../store/event-map.js';

/** The learning event types. */
export const LEARNING_EVENTS = {
  bulletAdded: 'learning.bullet_added',
  reflected: 'learning.reflected',
  feedbackGiven: 'learning.feedback_given',
  curated: 'learning.curated',
} as const satisfies Readonly<Record<string, EventType>>;

declare module '../../store/event-map.js' {
  /** The learning primitive's events (`LEARNING_EVENTS`). */
  interface EventMap {
    'learning.bullet_added': BulletAddedData;
    'learning.reflected': ReflectedData;
    'learning.feedback_given': FeedbackGivenData;
    'learning.curated': CuratedData;
  }
}

/** `learning.bullet_added`: one bullet added by `addBullet`. */
export interface BulletAddedData {
  readonly playbookId: string;
  readonly bullet: Bullet;
  readonly version: number;
  readonly at: string;
}

/** `learning.reflected`: one reflection, with the bullets it decided. */
export interface ReflectedData {
  readonly playbookId: string;
  /** Training mode (`online` or `offline`; `eval-only` reflections append nothing). */
  readonly mode: string;
  /** The reflector's name. */
  readonly reflector: string;
  /** What was reflected on, without the execution's input and output. */
  readonly execution: {
    readonly outcome: string;
    readonly verdict: string;
    readonly reward: number | null;
    readonly steps: number;
    readonly duration: number;
  };
  readonly newBullets: readonly Bullet[];
  /** Bullets removed (proposed by the reflector, or harmful after this execution's votes). */
  readonly prunedBullets: readonly string[];
  /** Votes from `execution.usedBullets`: helpful on success, harmful on failure. */
  readonly votes: readonly { readonly bulletId: string; readonly helpful: boolean }[];
  readonly version: number;
  readonly at: string;
}

/** `learning.feedback_given`: one helpful / harmful vote. */
export interface FeedbackGivenData {
  readonly playbookId: string;
  readonly bulletId: string;
  readonly helpful: boolean;
  readonly version: number;
  readonly at: string;
}

/** `learning.curated`: bullets removed to meet a token budget. */
export interface CuratedData {
  readonly playbookId: string;
  readonly maxTokens: number;
  readonly removed: readonly string[];
  readonly version: number;
  readonly at: string;
}

/** The learning state: playbooks keyed by {@link playbookKey}. */
export interface LearningState {
  readonly playbooks: Map<string, Playbook>;
}

/** The name of the learning projection. */
export const LEARNING_PROJECTION_NAME = 'primitives.learning';

/** The key of a playbook in the state: tenant and id (playbooks of different tenants never mix). */
export function playbookKey(tenant: string | undefined, playbookId: string): string {
  return JSON.stringify([tenant ?? null, playbookId]);
}

function playbookOf(state: LearningState, event: Event, playbookId: string, at: string): Playbook {
  const key = playbookKey(event.tenant, playbookId);
  let playbook = state.playbooks.get(key);
  if (playbook === undefined) {
    playbook = emptyPlaybook(playbookId, at);
    state.playbooks.set(key, playbook);
  }
  return playbook;
}

function addBullet(playbook: Playbook, bullet: Bullet): void {
  playbook.bullets.set(bullet.id, bullet);
  const { section, n } = parseBulletId(bullet.id);
  if (n > playbook.counters[section]) playbook.counters[section] = n;
}

function vote(playbook: Playbook, bulletId: string, helpful: boolean): void {
  const b = playbook.bullets.get(bulletId);
  if (b === undefined) return;
  playbook.bullets.set(
    bulletId,
    helpful ? { ...b, helpfulCount: b.helpfulCount + 1 } : { ...b, harmfulCount: b.harmfulCount + 1 },
  );
}

function touch(playbook: Playbook, version: number, at: string): void {
  playbook.version = version;
  playbook.updatedAt = at;
}

/** Applies one learning event (malformed events are skipped). */
export function applyLearningEvent(state: LearningState, event: Event): LearningState {
  const data = event.data;
  if (!isJsonObject(data) || typeof data['playbookId'] !== 'string' || typeof data['at'] !== 'string') {
    return state;
  }
  switch (event.type) {
    case LEARNING_EVENTS.bulletAdded: {
      const d = eventOf(event, LEARNING_EVENTS.bulletAdded)?.data;
      if (d === undefined) return state; // never: the case matched its type
      const playbook = playbookOf(state, event, d.playbookId, d.at);
      addBullet(playbook, d.bullet);
      touch(playbook, d.version, d.at);
      return state;
    }
    case LEARNING_EVENTS.reflected: {
      const d = eventOf(event, LEARNING_EVENTS.reflected)?.data;
      if (d === undefined) return state; // never: the case matched its type
      const playbook = playbookOf(state, event, d.playbookId, d.at);
      for (const v of d.votes) vote(playbook, v.bulletId, v.helpful);
      for (const id of d.prunedBullets) playbook.bullets.delete(id);
      for (const bullet of d.newBullets) addBullet(playbook, bullet);
      playbook.reflections += 1;
      touch(playbook, d.version, d.at);
      return state;
    }
    case LEARNING_EVENTS.feedbackGiven: {
      const d = eventOf(event, LEARNING_EVENTS.feedbackGiven)?.data;
      if (d === undefined) return state; // never: the case matched its type
      const playbook = playbookOf(state, event, d.playbookId, d.at);
      vote(playbook, d.bulletId, d.helpful);
      touch(playbook, d.version, d.at);
      return state;
    }
    case LEARNING_EVENTS.curated: {
      const d = eventOf(event, LEARNING_EVENTS.curated)?.data;
      if (d === undefined) return state; // never: the case matched its type
      const playbook = playbookOf(state, event, d.playbookId, d.at);
      for (const id of d.removed) playbook.bullets.delete(id);
      touch(playbook, d.version, d.at);
      return state;
    }
    default:
      return state;
  }
}

interface PlaybookJson {
  readonly key: string;
  readonly playbookId: string;
  readonly version: number;
  readonly counters: Playbook['counters'];
  readonly bullets: readonly Bullet[];
  readonly reflections: number;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** The learning projection. */
export const learningProjection: Projection<LearningState> = {
  name: LEARNING_PROJECTION_NAME,
  version: 1,
  filter: { typePrefix: 'learning.' },
  initial: () => ({ playbooks: new Map() }),
  apply: applyLearningEvent,
  toJson(state) {
    const playbooks: PlaybookJson[] = [...state.playbooks].map(([key, p]) => ({
      key,
      playbookId: p.playbookId,
      version: p.version,
      counters: p.counters,
      bullets: [...p.bullets.values()],
      reflections: p.reflections,
      createdAt: p.createdAt,
      updatedAt: p.updatedAt,
    }));
    return { playbooks } as unknown as JsonValue;
  },
  fromJson(json) {
    const list = (json as { playbooks?: PlaybookJson[] } | null)?.playbooks ?? [];
    return {
      playbooks: new Map(
        list.map((p) => [
          p.key,
          {
            playbookId: p.playbookId,
            version: p.version,
            counters: { ...p.counters },
            bullets: new Map(p.bullets.map((b) => [b.id, b])),
            reflections: p.reflections,
            createdAt: p.createdAt,
            updatedAt: p.updatedAt,
          },
        ]),
      ),
    };
  },
};
