/**
 * Playbooks (seed 003 §5.1): versioned collections of context bullets in four sections —
 * strategy (`str`), calculation (`cal`), mistake (`mis`) and feedback (`fbk`) — each bullet
 * with helpful / harmful counters and its token cost. Pure helpers only: ids, scores, the
 * harmful rule and the curation order; the state lives in the learning projection.
 */
import { PlexusError } from '../../core/errors.js';

/** The four playbook sections, in the order a rendered playbook lists them. */
export const PLAYBOOK_SECTIONS = ['str', 'cal', 'mis', 'fbk'] as const;

/** A playbook section code. */
export type PlaybookSection = (typeof PLAYBOOK_SECTIONS)[number];

/** Where a bullet came from. */
export type BulletSource = 'manual' | 'reflection';

/** One bullet as the projection holds it (and as events carry it). */
export interface Bullet {
  /** `<section>-<n>`, n zero-padded to 5 digits and counted per playbook and section (`str-00042`). */
  readonly id: string;
  readonly section: PlaybookSection;
  readonly content: string;
  readonly helpfulCount: number;
  readonly harmfulCount: number;
  /** `o200k_base` tokens of the bullet's rendered line (see `tokens.ts`). */
  readonly tokenCount: number;
  readonly source: BulletSource;
  /** RFC 3339, decided by the handler. */
  readonly createdAt: string;
}

/** A playbook as the projection holds it. */
export interface Playbook {
  readonly playbookId: string;
  /** Bumped by every change (bullet added, reflection applied, feedback, curation that removed bullets). */
  version: number;
  /** The highest bullet number given out so far, per section. */
  readonly counters: Record<PlaybookSection, number>;
  /** Bullets in the order they were added. */
  readonly bullets: Map<string, Bullet>;
  /** Reflections applied. */
  reflections: number;
  readonly createdAt: string;
  updatedAt: string;
}

/** Longest bullet content accepted, in characters. */
export const MAX_BULLET_CHARS = 2000;

/** A bullet whose harmful count reached this and exceeds its helpful count is pruned. */
export const HARMFUL_PRUNE_MIN = 3;

const BULLET_ID = /^(str|cal|mis|fbk)-(\d{5,})$/;

/** True when `value` is a section code. */
export function isSection(value: unknown): value is PlaybookSection {
  return typeof value === 'string' && (PLAYBOOK_SECTIONS as readonly string[]).includes(value);
}

/** The id of the `n`-th bullet of a section: `bulletId('str', 42)` → `str-00042`. */
export function bulletId(section: PlaybookSection, n: number): string {
  return `${section}-${String(n).padStart(5, '0')}`;
}

/**
 * The section and number of a bullet id.
 * @throws PlexusError `INVALID_PARAMS` when `id` is not `<section>-<digits>`.
 */
export function parseBulletId(id: string): { readonly section: PlaybookSection; readonly n: number } {
  const m = BULLET_ID.exec(id);
  if (m === null || !isSection(m[1])) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `bulletId ${JSON.stringify(id)} is not <str|cal|mis|fbk>-<digits>`,
      {
        details: { field: 'bulletId' },
      },
    );
  }
  return { section: m[1], n: Number(m[2]) };
}

/** An empty playbook. */
export function emptyPlaybook(playbookId: string, at: string): Playbook {
  return {
    playbookId,
    version: 0,
    counters: { str: 0, cal: 0, mis: 0, fbk: 0 },
    bullets: new Map(),
    reflections: 0,
    createdAt: at,
    updatedAt: at,
  };
}

/**
 * A bullet's score: the Laplace-smoothed share of helpful votes, `(helpful + 1) / (helpful +
 * harmful + 2)`, in (0, 1); a bullet nobody has rated scores 0.5.
 */
export function bulletScore(bullet: Pick<Bullet, 'helpfulCount' | 'harmfulCount'>): number {
  return (bullet.helpfulCount + 1) / (bullet.helpfulCount + bullet.harmfulCount + 2);
}

/** True when a bullet has been marked harmful at least {@link HARMFUL_PRUNE_MIN} times and more often than helpful. */
export function isHarmful(bullet: Pick<Bullet, 'helpfulCount' | 'harmfulCount'>): boolean {
  return bullet.harmfulCount >= HARMFUL_PRUNE_MIN && bullet.harmfulCount > bullet.helpfulCount;
}

/** The form used to detect duplicate bullets: trimmed, spaces collapsed, lower case. */
export function normalizeContent(content: string): string {
  return content.trim().replace(/\s+/g, ' ').toLowerCase();
}

/** The total token count of a playbook's bullets. */
export function playbookTokens(bullets: Iterable<Bullet>): number {
  let total = 0;
  for (const b of bullets) total += b.tokenCount;
  return total;
}

/** The bullet of a section with this content (normalised), if any. */
export function findDuplicate(
  bullets: Iterable<Bullet>,
  section: PlaybookSection,
  content: string,
): Bullet | undefined {
  const key = normalizeContent(content);
  for (const b of bullets) if (b.section === section && normalizeContent(b.content) === key) return b;
  return undefined;
}

/**
 * The bullets curation removes, in removal order: first every harmful bullet
 * ({@link isHarmful}), then, while the remaining tokens exceed `maxTokens`, the lowest
 * scored bullet (ties: fewer helpful votes first, then the oldest first).
 */
export function curationOrder(bullets: readonly Bullet[], maxTokens: number): string[] {
  const removed: string[] = [];
  const kept: { bullet: Bullet; index: number }[] = [];
  bullets.forEach((bullet, index) => {
    if (isHarmful(bullet)) removed.push(bullet.id);
    else kept.push({ bullet, index });
  });
  let tokens = playbookTokens(kept.map((k) => k.bullet));
  if (tokens <= maxTokens) return removed;
  kept.sort(
    (a, b) =>
      bulletScore(a.bullet) - bulletScore(b.bullet) ||
      a.bullet.helpfulCount - b.bullet.helpfulCount ||
      a.index - b.index,
  );
  for (const { bullet } of kept) {
    if (tokens <= maxTokens) break;
    removed.push(bullet.id);
    tokens -= bullet.tokenCount;
  }
  return removed;
}
