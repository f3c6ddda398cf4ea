/**
 * Transcripts in Markdown: the ```` ```console ```` blocks of the README and docs/faces/*.md.
 * A line starting with `$ ` is a command (a trailing `\`, a single quote left open, or a here-document
 * `<<EOF` … `EOF` continues it on the next lines, as in a shell); the lines after it, up to the next
 * command, are what it prints (stdout and stderr, in order). Words after `console` on the opening
 * fence (```` ```console stopped ````) are options of the block, for the test that runs it.
 *
 * In what a page shows, `...` or `…` stands for any text (a hash, a signature, the rest of a long
 * answer), and a UUID shortened to its first group (`e10a3e53-…`) for any UUID. Before comparing,
 * both sides have ids and times masked: UUIDs, RFC 3339 timestamps, `duration_ms`, `searchTime`.
 * So a transcript can be pasted from a real run and still compare.
 */

/** One command of a transcript and what it prints. */
export interface TranscriptStep {
  /** The command, without `$ ` (continuation lines joined). */
  readonly command: string;
  /** The expected output lines. */
  readonly expected: readonly string[];
  /** 1-based line of the command in its file. */
  readonly line: number;
}

/** One ```` ```console ```` block. */
export interface Transcript {
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  /** The nearest heading above the block. */
  readonly heading: string;
  /** The words after `console` on the opening fence. */
  readonly options: readonly string[];
  readonly steps: readonly TranscriptStep[];
}

/** One fenced block of a Markdown text. */
export interface FencedBlock {
  /** 1-based line of the opening fence. */
  readonly line: number;
  /** The nearest heading above the block. */
  readonly heading: string;
  /** The info string of the opening fence, trimmed (`console`, `sh`, `yaml stopped`, or ``). */
  readonly info: string;
  /** The lines between the fences, with their 1-based line numbers. */
  readonly body: readonly { readonly text: string; readonly line: number }[];
}

/** True while a shell command has an unclosed single quote (a quoted text spans lines). */
function openQuote(command: string): boolean {
  return (command.match(/'/g)?.length ?? 0) % 2 === 1;
}

/**
 * Blocks of commands a page shows that no test runs, each with where it is and why: in
 * docs/faces/*.md every shell block (```` ```sh ````, ```` ```bash ````, untagged…) must be a
 * ```` ```console ```` transcript; in the README a shell block holds commands only (no output,
 * no prompts, no comment lines). A console block must start with a command.
 */
export function uncheckedBlocks(page: string, markdown: string): string[] {
  const problems: string[] = [];
  for (const block of fencedBlocks(markdown)) {
    const [language = ''] = block.info.split(/\s+/);
    const where = `${page}:${String(block.line)} (${block.heading})`;
    const lines = block.body.map((l) => l.text).filter((l) => l.trim() !== '');
    if (language === 'console') {
      if (!(lines[0] ?? '').startsWith('$ '))
        problems.push(`${where}: a console block starts with a "$ " command`);
      continue;
    }
    if (!['', 'sh', 'bash', 'shell', 'zsh', 'text'].includes(language)) continue;
    if (page.startsWith('docs/faces/')) {
      problems.push(
        `${where}: a \`\`\`${language} block; commands with their output go in a checked \`\`\`console block`,
      );
    } else if (lines.some((l) => /^\s*(#|\$ |> )/.test(l))) {
      problems.push(
        `${where}: a \`\`\`${language} block shows output or prompts; make it a checked \`\`\`console block`,
      );
    }
  }
  return problems;
}

/** The delimiter of a here-document the command opens (`<<EOF`, `<<'EOF'`, `<<-EOF`), if any. */
function hereDocument(command: string): { readonly word: string; readonly tabs: boolean } | undefined {
  const m = /(?<!<)<<(-?)\s*(['"]?)([A-Za-z_]\w*)\2/.exec(command);
  return m === null ? undefined : { word: m[3] ?? '', tabs: m[1] === '-' };
}

/** Every fenced block of a Markdown text, in order. */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const lines = markdown.split('\n');
  const found: FencedBlock[] = [];
  let heading = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (/^#{1,6} /.test(line)) heading = line.replace(/^#+ /, '');
    if (!/^```/.test(line)) continue;
    const info = line.slice(3).trim();
    const start = i;
    const body: { text: string; line: number }[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i] ?? ''); i++) {
      body.push({ text: lines[i] ?? '', line: i + 1 });
    }
    found.push({ line: start + 1, heading, info, body });
  }
  return found;
}

/** Every ```` ```console ```` block of a Markdown text, in order. */
export function transcripts(file: string, markdown: string): Transcript[] {
  const found: Transcript[] = [];
  for (const { line, heading, info, body } of fencedBlocks(markdown)) {
    const [language, ...options] = info.split(/\s+/);
    if (language !== 'console') continue;
    const steps: TranscriptStep[] = [];
    for (let k = 0; k < body.length; k++) {
      const entry = body[k];
      if (entry === undefined || !entry.text.startsWith('$ ')) continue;
      let command = entry.text.slice(2);
      while ((command.endsWith('\\') || openQuote(command)) && k + 1 < body.length) {
        k++;
        command = `${command}\n${body[k]?.text ?? ''}`;
      }
      const here = hereDocument(command);
      if (here !== undefined) {
        while (k + 1 < body.length) {
          k++;
          const text = body[k]?.text ?? '';
          command = `${command}\n${text}`;
          if ((here.tabs ? text.replace(/^\t+/, '') : text) === here.word) break;
        }
      }
      const expected: string[] = [];
      while (k + 1 < body.length && !(body[k + 1]?.text ?? '').startsWith('$ ')) {
        k++;
        expected.push(body[k]?.text ?? '');
      }
      steps.push({ command, expected, line: entry.line });
    }
    found.push({ file, line, heading, options, steps });
  }
  return found;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})/g;
const DURATION = /("duration_ms":|"searchTime":)\d+(?:\.\d+)?/g;
/** A UUID shortened to its first group in what a page shows: `e10a3e53-…`. */
const SHORT_UUID = /\b[0-9a-f]{8}-(?:…|\.\.\.)/gi;

/** Masks what differs from run to run: UUIDs, timestamps, durations. */
export function mask(text: string): string {
  return text.replace(UUID, '<uuid>').replace(TIME, '<time>').replace(DURATION, '$1<n>');
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * True when `actual` is what `expected` shows: equal after masking, where `...` and `…` in
 * `expected` match any text (across lines too). Trailing spaces and blank lines at the end are
 * ignored.
 */
export function matchesTranscript(expected: readonly string[], actual: string): boolean {
  const tidy = (text: string): string =>
    text
      .split('\n')
      .map((l) => l.trimEnd())
      .join('\n')
      .replace(/\n+$/, '');
  const want = mask(tidy(expected.join('\n')))
    .replace(SHORT_UUID, '<uuid>')
    .split('\n');
  const got = mask(tidy(actual));
  const wild = (line: string | undefined): boolean => line !== undefined && /^\s*(?:\.\.\.|…)\s*$/.test(line);
  let pattern = '';
  want.forEach((line, i) => {
    const last = i === want.length - 1;
    if (wild(line)) {
      // A line of its own: any number of whole lines.
      pattern += last ? '(?:\\n[\\s\\S]*)?' : '(?:[^\\n]*\\n)*?';
      return;
    }
    pattern += line
      .split(/\.\.\.|…/)
      .map(escape)
      .join('[\\s\\S]*?');
    if (!last && !(wild(want[i + 1]) && i + 1 === want.length - 1)) pattern += '\\n';
  });
  return new RegExp(`^${pattern}$`).test(got);
}
