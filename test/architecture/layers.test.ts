import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// DESIGN.md §3: imports point down this list only.
const LAYERS = [
  'cli',
  'sdk',
  'node',
  'interop',
  'transports',
  'coordination',
  'primitives',
  'runtime',
  'store',
  'security',
  'wire',
  'observability',
  'core',
] as const;

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const src = join(root, 'src');

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

function layerOf(file: string): string | undefined {
  const parts = relative(src, file).split(sep);
  return parts.length > 1 ? parts[0] : undefined;
}

const IMPORT = /(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g;

describe('layering', () => {
  const files = tsFiles(src);

  it('finds the source files', () => {
    expect(files.length).toBeGreaterThan(5);
  });

  it('has imports that point down the layers only', () => {
    const violations: string[] = [];
    for (const file of files) {
      const from = layerOf(file);
      if (from === undefined) continue;
      const fromRank = LAYERS.indexOf(from as (typeof LAYERS)[number]);
      for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
        const spec = m[1]!;
        if (!spec.startsWith('.')) continue;
        const to = layerOf(resolve(dirname(file), spec));
        if (to === undefined || to === from) continue;
        const toRank = LAYERS.indexOf(to as (typeof LAYERS)[number]);
        if (toRank < fromRank) violations.push(`${relative(root, file)} imports ${spec} (${from} -> ${to})`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('keeps core free of I/O and Node built-ins other than crypto hashing', () => {
    const offenders: string[] = [];
    for (const file of files.filter((f) => layerOf(f) === 'core')) {
      for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
        const spec = m[1]!;
        if (spec.startsWith('node:') && spec !== 'node:crypto')
          offenders.push(`${relative(root, file)}: ${spec}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('keeps console out of src/ except the CLI', () => {
    const offenders = files
      .filter((f) => layerOf(f) !== 'cli')
      .filter((f) => /\bconsole\.(log|error|warn|info|debug)\(/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(root, f));
    expect(offenders).toEqual([]);
  });
});
