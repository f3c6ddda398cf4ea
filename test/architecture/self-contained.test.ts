/**
 * The repository is self-contained (issue 11, item 10): nothing in `src/`, `test/`, `bench/`,
 * `examples/` or the README reads the `shared` directory that sits beside the checkout on a
 * developer's machine but not on a fresh clone. Fixtures live in `test/fixtures/`.
 *
 * The patterns are assembled from parts so that this file does not match itself.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const NAME = ['sha', 'red'].join('');
const SCANNED = ['src', 'test', 'bench', 'examples', 'README.md'];
const TEXT = /\.(?:ts|js|mjs|cjs|json|md|ya?ml|txt|sh)$/;

/** What lives in the outside directory: a path naming one of these after it is a read of it. */
const OUTSIDE_ENTRY = new RegExp(`\\b${NAME}[\\\\/](?:fixtures|seeds|hooks|DESIGN\\.md|README\\.md)`);
/** `join(ROOT, '..', 'x')`-style segments. */
const JOINED = new RegExp(`['"]\\.\\.['"]\\s*,\\s*['"]${NAME}['"]`);
/** An absolute path to it. */
const ABSOLUTE = new RegExp(`/work/${NAME}\\b`);
/** A relative path to a directory of that name; an offence only if it leaves the repository. */
const RELATIVE = new RegExp(`((?:\\.\\.[\\\\/])+)${NAME}\\b`, 'g');

/** The problems of one file's text: each a line number and the offending text. */
function outsideReads(text: string, fileDir: string, repoRoot: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, i) => {
    const hit =
      OUTSIDE_ENTRY.exec(line)?.[0] ??
      JOINED.exec(line)?.[0] ??
      ABSOLUTE.exec(line)?.[0] ??
      [...line.matchAll(RELATIVE)].find((m) => {
        const target = resolve(fileDir, m[1] ?? '', NAME);
        return relative(repoRoot, target).startsWith('..');
      })?.[0];
    if (hit !== undefined) found.push(`${String(i + 1)}: ${hit}`);
  });
  return found;
}

function files(path: string): string[] {
  const abs = join(root, path);
  let stat;
  try {
    stat = statSync(abs);
  } catch {
    return [];
  }
  if (stat.isFile()) return [path];
  return readdirSync(abs, { withFileTypes: true }).flatMap((e) =>
    e.name === 'node_modules'
      ? []
      : e.isDirectory()
        ? files(join(path, e.name))
        : TEXT.test(e.name)
          ? [join(path, e.name)]
          : [],
  );
}

describe('self-contained repository', () => {
  it('no file in src, test, bench, examples or the README reads the directory beside the checkout', () => {
    const offences = SCANNED.flatMap(files).flatMap((file) =>
      outsideReads(readFileSync(join(root, file), 'utf8'), dirname(join(root, file)), root).map(
        (o) => `${file.split(sep).join('/')}:${o}`,
      ),
    );
    expect(offences).toEqual([]);
  });

  it('the fixtures the tests read are in test/fixtures, each set with its SOURCE.md', () => {
    for (const set of [
      'esrp-v1',
      'jsonrpc-2.0',
      'ed25519-rfc8032',
      'emergence-seed-examples',
      'hyperspace-seed-examples',
    ]) {
      const source = readFileSync(join(root, 'test', 'fixtures', set, 'SOURCE.md'), 'utf8');
      expect(source, set).toMatch(/\*\*Source:\*\*/);
      expect(source, set).toMatch(/\*\*Licence:\*\*/);
    }
  });

  it('the check catches every form of such a read, and not a folder of that name inside the repository', () => {
    const dir = join(root, 'test', 'primitives', 'recursive');
    const up = (n: number): string => '../'.repeat(n);
    const bad = [
      `new URL('${up(4)}${NAME}/fixtures/esrp-v1/x.json', import.meta.url)`,
      `new URL('${up(4)}${NAME}/other.json', import.meta.url)`,
      `resolve(root, '../${NAME}/fixtures/esrp-v1')`,
      `join(ROOT, '..', '${NAME}', 'x.json')`,
      `/work/${NAME}/seeds/000.txt`,
      `$ plexus validate ../${NAME}/fixtures/esrp-v1/requests/simple_tts.json`,
    ];
    for (const line of bad) expect(outsideReads(line, dir, root), line).toHaveLength(1);
    expect(outsideReads(`import { x } from '../${NAME}/core-harness.js';`, dir, root)).toEqual([]);
    expect(outsideReads(`card('${NAME}')`, dir, root)).toEqual([]);
  });
});
