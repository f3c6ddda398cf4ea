/**
 * The live progress display of `plexus call --follow`: on a terminal, one status line
 * (spinner, bar, percentage, last message) rewritten in place with `\r`; elsewhere (pipes,
 * CI logs), one plain line per event.
 */

/** What the display is told about a job. */
export interface ProgressUpdate {
  /** The job event name (`job_queued`, `job_started`, `job_progress`, …). */
  readonly name: string;
  /** The event's data (a progress report for `job_progress`). */
  readonly data?: unknown;
}

/** A progress display. */
export interface ProgressDisplay {
  /** Shows an event. */
  update(update: ProgressUpdate): void;
  /** Redraws the spinner (on a terminal; nothing elsewhere). */
  tick(): void;
  /** Ends the display (clears the status line on a terminal). */
  done(): void;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const BAR_WIDTH = 20;

/** The percentage (0–100) a progress report carries, when it carries one. */
export function percentOf(data: unknown): number | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const o = data as Record<string, unknown>;
  if (typeof o['progress'] === 'object' && o['progress'] !== null) return percentOf(o['progress']);
  if (typeof o['percent'] === 'number') return Math.max(0, Math.min(100, o['percent']));
  const step = o['step'] ?? o['current'] ?? o['done'];
  const of = o['of'] ?? o['total'];
  if (typeof step === 'number' && typeof of === 'number' && of > 0) {
    return Math.max(0, Math.min(100, (step * 100) / of));
  }
  return undefined;
}

function describe(data: unknown): string {
  if (data === undefined) return '';
  const text = typeof data === 'string' ? data : JSON.stringify(data);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/**
 * Creates a display writing through `write`.
 *
 * @param tty true on a terminal: one line rewritten in place.
 */
export function progressDisplay(write: (text: string) => void, tty: boolean, label = 'job'): ProgressDisplay {
  let frame = 0;
  let state = 'submitted';
  let percent: number | undefined;
  let last = '';
  let drawn = false;
  const draw = (): void => {
    const spinner = FRAMES[frame % FRAMES.length] ?? '*';
    const bar =
      percent === undefined
        ? ''
        : ` [${'#'.repeat(Math.round((percent * BAR_WIDTH) / 100)).padEnd(BAR_WIDTH, '-')}] ${Math.floor(percent)}%`;
    write(`\r\x1b[K${spinner} ${label} ${state}${bar}${last === '' ? '' : ` ${last}`}`);
    drawn = true;
  };
  return {
    update({ name, data }: ProgressUpdate): void {
      state = name.replace(/^job_/, '');
      if (name === 'job_progress') {
        percent = percentOf(data) ?? percent;
        last = describe(data);
      }
      if (tty) draw();
      else write(`${name}${data === undefined ? '' : ` ${JSON.stringify(data)}`}\n`);
    },
    tick(): void {
      if (!tty) return;
      frame++;
      draw();
    },
    done(): void {
      if (tty && drawn) write('\r\x1b[K');
    },
  };
}
