/**
 * `plexus config schema`: the JSON Schema of plexus.yaml, in-process and from the built binary;
 * a JSON Schema validator (Ajv, draft 2020-12) accepts the documented configuration with it and
 * refuses what the node refuses.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { runCli } from './run-cli.js';

const root = resolve(fileURLToPath(import.meta.url), '../../..');

function documented(): unknown {
  const page = readFileSync(join(root, 'docs/config.md'), 'utf8');
  const block = /```yaml\n([\s\S]*?)```/.exec(page.slice(page.indexOf('## Reference')));
  return parseYaml(block?.[1] ?? '');
}

describe('plexus config schema', () => {
  it('prints a JSON Schema that accepts the documented file and refuses bad ones', async () => {
    const run = await runCli(['config', 'schema']);
    expect(run.code).toBe(0);
    expect(run.err).toBe('');
    const validate = new Ajv2020({ strict: false }).compile(JSON.parse(run.out) as object);
    expect(validate(documented()), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ port: 70000 })).toBe(false);
    expect(validate({ colour: 'blue' })).toBe(false);
    expect(
      validate({ supervision: { strategy: 'one-for-all', maxRestarts: 1, periodMs: 10, children: [7] } }),
    ).toBe(false);
  });

  it('works from the built binary', () => {
    const r = spawnSync(process.execPath, [join(root, 'bin', 'plexus.js'), 'config', 'schema'], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ title: 'plexus.yaml', additionalProperties: false });
  });
});
