/**
 * Issue 11, item 15: the README's `plexus.yaml` reference lists every key the configuration
 * accepts, and nothing it does not. Both ways:
 *
 * - the documented block parses as it is (every documented key and value is accepted);
 * - for every mapping in it, the keys the configuration's schema accepts there
 *   (`src/node/config-schema.ts`, read by `knownKeys`) equal the documented keys.
 *
 * Mappings whose keys are the user's own names (prices, tenants, policies, verbs, groups) are
 * not checked.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { parseNodeConfigText } from '../../src/node/config.js';
import { ROOT } from '../e2e/harness.js';
import { schemaKeysAt } from '../support/config-keys.js';

/** Paths (dot-separated, `[0]` for a list's first item) whose keys are user-chosen names. */
const FREE_FORM = new Set([
  'budgets.prices',
  'budgets.tenants',
  'budgets.principals',
  'fallback_policies',
  'routing.verbs',
  'routing.groups',
  'mcp.servers[0].env',
  'mcp.servers[0].headers',
  'a2a.agents[0].headers',
]);

type Path = readonly (string | number)[];
type Mapping = Record<string, unknown>;

function referenceBlock(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## `plexus.yaml`'));
  const block = /```yaml\n([\s\S]*?)```/.exec(section);
  if (block?.[1] === undefined) throw new Error('README: no ```yaml block under "## `plexus.yaml`"');
  return block[1];
}

const isMapping = (v: unknown): v is Mapping => typeof v === 'object' && v !== null && !Array.isArray(v);
const show = (path: Path): string =>
  path.map((p, i) => (typeof p === 'number' ? `[${String(p)}]` : i === 0 ? p : `.${p}`)).join('');

/** Every mapping in `value`, with its path. */
function mappings(value: unknown, path: Path = []): { path: Path; keys: string[] }[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => mappings(item, [...path, i]));
  if (!isMapping(value)) return [];
  return [
    { path, keys: Object.keys(value) },
    ...Object.entries(value).flatMap(([k, v]) => mappings(v, [...path, k])),
  ];
}

/** Lists whose items are alternatives (an `mcp.servers` entry is stdio *or* HTTP). */
const ALTERNATIVES = new Set(['mcp.servers']);

/**
 * The mappings of {@link mappings}, the items of each list of {@link ALTERNATIVES} taken
 * together (their keys joined, `name` their path written with index 0, `path` the first one's
 * own): such a list documents each key in one of its items.
 */
function listsJoined(
  all: readonly { path: Path; keys: string[] }[],
): { path: Path; name: string; keys: string[] }[] {
  const byName = new Map<string, { path: Path; name: string; keys: string[] }>();
  for (const { path, keys } of all) {
    const at = path.findIndex((p, i) => typeof p === 'number' && ALTERNATIVES.has(show(path.slice(0, i))));
    const name = show(at < 0 ? path : [...path.slice(0, at), 0, ...path.slice(at + 1)]);
    const seen = byName.get(name);
    if (seen === undefined) byName.set(name, { path, name, keys: [...keys] });
    else for (const k of keys) if (!seen.keys.includes(k)) seen.keys.push(k);
  }
  return [...byName.values()];
}

/** The keys the configuration's schema accepts at `path` (read from the zod schema itself). */
function knownKeys(config: unknown, path: Path): string[] {
  return schemaKeysAt(config, path);
}

describe('the README plexus.yaml reference', () => {
  const text = referenceBlock();
  const documented: unknown = parseYaml(text);

  it('is accepted by the validator as written', () => {
    expect(() => parseNodeConfigText(text, 'README plexus.yaml')).not.toThrow();
  });

  it('documents every key the validator accepts, and no other', () => {
    const checked = listsJoined(mappings(documented)).filter(({ name }) => !FREE_FORM.has(name));
    expect(checked.length).toBeGreaterThan(10);
    for (const { path, keys } of checked) {
      expect(keys.sort(), `keys at ${show(path) || 'the top level'}`).toEqual(knownKeys(documented, path));
    }
  });

  it('the probe notices an undocumented key', () => {
    const fewer = structuredClone(documented) as Mapping;
    delete fewer['drainMs'];
    const top = mappings(fewer)[0];
    expect(top?.keys.sort()).not.toEqual(knownKeys(fewer, []));
  });
});
