/**
 * docs/config.md against the configuration's schema (src/node/config-schema.ts): every key the
 * schema accepts is in the page's reference block, every key in the block is one the schema
 * accepts, and the block is accepted as written.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { parseNodeConfigText } from '../../src/node/config.js';
import { documentKeyPaths, schemaKeyPaths } from '../support/config-keys.js';

const ROOT = join(import.meta.dirname, '../..');

function referenceBlock(): string {
  const page = readFileSync(join(ROOT, 'docs/config.md'), 'utf8');
  const section = page.slice(page.indexOf('## Reference'));
  const block = /```yaml\n([\s\S]*?)```/.exec(section);
  if (block?.[1] === undefined) throw new Error('docs/config.md: no ```yaml block under "## Reference"');
  return block[1];
}

describe('docs/config.md', () => {
  const text = referenceBlock();
  const { paths, records } = schemaKeyPaths();
  const documented = documentKeyPaths(parseYaml(text), records);

  it('is accepted by the schema as written', () => {
    expect(() => parseNodeConfigText(text, 'docs/config.md')).not.toThrow();
  });

  it('documents every key of the schema', () => {
    expect(paths.size).toBeGreaterThan(40);
    expect([...paths].filter((p) => !documented.has(p)).sort()).toEqual([]);
  });

  it('documents no key the schema does not accept', () => {
    expect([...documented].filter((p) => !paths.has(p)).sort()).toEqual([]);
  });

  it('notices a key the page leaves out', () => {
    const fewer = parseYaml(text) as Record<string, Record<string, unknown>>;
    delete fewer['limits']?.['maxInFlight'];
    expect(documentKeyPaths(fewer, records).has('limits.maxInFlight')).toBe(false);
    expect(paths.has('limits.maxInFlight')).toBe(true);
  });
});
