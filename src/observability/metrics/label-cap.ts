/**
 * Bounded label values (docs/decisions/observability.md OBS-2): the first `max` distinct
 * values of a label are kept as they are, every later one is counted under {@link OTHER_LABEL}.
 * A value that is too long or not printable is `other` at once.
 */

/** The label value every value beyond the cap is counted under. */
export const OTHER_LABEL = 'other';

/** The longest label value kept, characters. */
export const MAX_LABEL_LENGTH = 128;

const PRINTABLE = /^[\x21-\x7e]+$/;

/** Maps label values onto at most `max` distinct values plus `other`. */
export interface LabelCap {
  /** `value` when it is one of the first `max` distinct values seen, else `other`. */
  of(value: string): string;
  /** How many distinct values are kept. */
  readonly size: number;
}

/**
 * Creates a label cap of `max` distinct values.
 * @example
 * const verbs = labelCap(200);
 * verbs.of('math.evaluate'); // 'math.evaluate' (until 200 others came first)
 */
export function labelCap(max: number): LabelCap {
  const kept = new Set<string>();
  return {
    of(value) {
      if (kept.has(value)) return value;
      if (kept.size >= max || value.length > MAX_LABEL_LENGTH || !PRINTABLE.test(value)) return OTHER_LABEL;
      kept.add(value);
      return value;
    },
    get size() {
      return kept.size;
    },
  };
}
