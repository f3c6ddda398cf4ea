import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// docs/decisions/: one file per area, an index (README.md), and records a newcomer can read.
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const dir = join(root, 'docs', 'decisions');
const index = readFileSync(join(dir, 'README.md'), 'utf8');
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.md') && f !== 'README.md')
  .sort();

const ADDED = '## Added by issue 11';
const addedStart = index.indexOf(ADDED);
const addedEnd = index.indexOf('\n## ', addedStart + ADDED.length);
const mainIndex =
  addedStart < 0 ? index : index.slice(0, addedStart) + index.slice(addedEnd < 0 ? index.length : addedEnd);
const addedIndex = addedStart < 0 ? '' : index.slice(addedStart, addedEnd < 0 ? index.length : addedEnd);
const links = (text: string): Set<string> =>
  new Set([...text.matchAll(/\]\(([^)#\s]+)\)/g)].map((m) => m[1] ?? ''));
const mainLinks = links(mainIndex);
/** The index with wrapped list items joined back into one line each. */
const flatIndex = index.replace(/\n +(?!- )/g, ' ');

/** The lines of a markdown text outside fenced code blocks. */
function proseLines(text: string): { line: string; number: number }[] {
  let fenced = false;
  return text.split('\n').flatMap((line, i) => {
    if (line.startsWith('```')) {
      fenced = !fenced;
      return [];
    }
    return fenced ? [] : [{ line, number: i + 1 }];
  });
}

/** Each `### ` record of a file: its heading and the lines up to the next heading. */
function records(text: string): { heading: string; body: string[] }[] {
  const out: { heading: string; body: string[] }[] = [];
  for (const { line } of proseLines(text)) {
    if (line.startsWith('### ')) out.push({ heading: line.slice(4).trim(), body: [] });
    else if (line.startsWith('#')) out.push({ heading: '', body: [] });
    else out.at(-1)?.body.push(line);
  }
  return out.filter((r) => r.heading !== '');
}

describe('docs/decisions', () => {
  it('has area files and no single decisions file any more', () => {
    expect(files.length).toBeGreaterThan(10);
    expect(existsSync(join(root, 'docs', 'decisions.md'))).toBe(false);
  });

  it('links every file from the index', () => {
    const all = links(index);
    expect(files.filter((f) => !all.has(f))).toEqual([]);
  });

  it('has no prose line over 200 characters (code blocks and tables aside)', () => {
    const long = ['README.md', ...files].flatMap((f) =>
      proseLines(readFileSync(join(dir, f), 'utf8'))
        .filter(({ line }) => !line.trimStart().startsWith('|') && line.length > 200)
        .map(({ number, line }) => `${f}:${number} (${line.length} characters)`),
    );
    expect(long).toEqual([]);
  });

  it('writes every record as Context, Decision, Why, and lists it in the index', () => {
    const problems: string[] = [];
    for (const f of files.filter((name) => mainLinks.has(name))) {
      const recs = records(readFileSync(join(dir, f), 'utf8'));
      if (recs.length === 0) problems.push(`${f}: no ### records`);
      const seen = new Set<string>();
      for (const { heading, body } of recs) {
        const id = heading.split(' — ')[0] ?? '';
        if (!heading.includes(' — ')) problems.push(`${f}: "${heading}" is not "<id> — <title>"`);
        if (seen.has(id)) problems.push(`${f}: id ${id} twice`);
        seen.add(id);
        const labels = body
          .filter((l) => /^- \*\*[A-Za-z]+:\*\*/.test(l))
          .map((l) => /^- \*\*([A-Za-z]+):/.exec(l)?.[1]);
        if (labels.join(',') !== 'Context,Decision,Why') {
          problems.push(
            `${f}: ${id} has ${labels.join(', ') || 'no labels'}, expected Context, Decision, Why`,
          );
        }
        if (!flatIndex.includes(`- ${heading}\n`)) problems.push(`${f}: ${id} is not listed in README.md`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('gives the files added by issue 11 a context, a decision and a reason', () => {
    const added = files.filter((f) => !mainLinks.has(f) && links(addedIndex).has(f));
    const missing = added.filter((f) => {
      const text = readFileSync(join(dir, f), 'utf8').toLowerCase();
      return !['context', 'decision', 'why'].every((w) => text.includes(w));
    });
    expect(missing).toEqual([]);
  });

  it('has no broken relative links', () => {
    const broken = ['README.md', ...files].flatMap((f) =>
      [...links(readFileSync(join(dir, f), 'utf8'))]
        .filter((target) => !/^[a-z]+:/.test(target) && !existsSync(join(dir, target)))
        .map((target) => `${f} -> ${target}`),
    );
    expect(broken).toEqual([]);
  });

  it('leaves no reference to the old single file in src, test, bench, docs or README.md', () => {
    const self = fileURLToPath(import.meta.url);
    const old = new RegExp(['docs', 'decisions\\.md'].join('/') + '|\\]\\((\\.\\./)?decisions\\.md\\)');
    const walk = (path: string): string[] =>
      statSync(path).isDirectory()
        ? readdirSync(path).flatMap((e) => (e === 'node_modules' ? [] : walk(join(path, e))))
        : [path];
    const hits = ['src', 'test', 'bench', 'docs', 'README.md']
      .flatMap((p) => walk(join(root, p)))
      .filter((path) => path !== self && /\.(ts|js|mjs|md|json|ya?ml)$/.test(path))
      .filter((path) => old.test(readFileSync(path, 'utf8')))
      .map((path) => relative(root, path));
    expect(hits).toEqual([]);
  });
});
