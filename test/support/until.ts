/**
 * Bounded polling for tests: wait until a condition holds (or a value is there), failing after
 * a limit with a message that names what was awaited. Never a timing assertion: the limit only
 * decides how long a broken test takes to fail.
 */

/** Options of {@link until} and {@link eventually}. */
export interface PollOptions {
  /** What is awaited, for the timeout message. @default the source text of the check */
  readonly what?: string;
  /** How long to wait before failing. @default 10000 */
  readonly limitMs?: number;
  /** Pause between two checks. @default 2 */
  readonly everyMs?: number;
}

const DEFAULT_LIMIT_MS = 10_000;
const DEFAULT_EVERY_MS = 2;

function optionsOf(options: PollOptions | number): PollOptions {
  return typeof options === 'number' ? { limitMs: options } : options;
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** One look at the awaited thing: its value once there, else the error the look threw (if any). */
type Look<T> =
  { readonly found: true; readonly value: T } | { readonly found: false; readonly error?: unknown };

async function poll<T>(look: () => Promise<Look<T>>, what: string, options: PollOptions): Promise<T> {
  const limitMs = options.limitMs ?? DEFAULT_LIMIT_MS;
  const started = Date.now();
  for (;;) {
    const seen = await look();
    if (seen.found) return seen.value;
    if (Date.now() - started > limitMs) {
      const last = seen.error instanceof Error ? `: ${seen.error.message}` : '';
      throw new Error(`timed out after ${limitMs} ms waiting for ${what}${last}`);
    }
    await pause(options.everyMs ?? DEFAULT_EVERY_MS);
  }
}

/**
 * Waits until `check()` is true, polling; an error `check` throws fails at once. `options` is
 * the limit in ms or {@link PollOptions}.
 */
export async function until(
  check: () => boolean | Promise<boolean>,
  options: PollOptions | number = {},
): Promise<void> {
  const o = optionsOf(options);
  await poll(
    async () => ((await check()) ? { found: true, value: undefined } : { found: false }),
    o.what ?? `\`${check.toString()}\``,
    o,
  );
}

/**
 * Polls `check` until it answers a value other than undefined and answers it; a throwing
 * check counts as not yet (its last error is quoted on timeout).
 */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined>,
  options: PollOptions | number = {},
): Promise<T> {
  return poll<T>(
    async () => {
      try {
        const value = await check();
        return value === undefined ? { found: false } : { found: true, value };
      } catch (error) {
        return { found: false, error };
      }
    },
    what,
    optionsOf(options),
  );
}
