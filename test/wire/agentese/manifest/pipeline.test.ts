import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { composeEffects } from '../../../../src/core/records/effects.js';
import { composePipeline, loadManifest, resolveStep } from '../../../../src/wire/agentese/manifest/index.js';

const EXAMPLE = fileURLToPath(new URL('../../../../examples/plexus.manifest.yaml', import.meta.url));
const { manifest } = loadManifest(readFileSync(EXAMPLE, 'utf8'), 'x.yaml');

describe('composePipeline', () => {
  it('unions effects and capabilities in step order (seed 002 §3.2)', () => {
    const r = composePipeline(manifest, ['soul.memory.recall', 'atelier.session.start', 'void.entropy.sip']);
    expect(r.errors).toEqual([]);
    expect(r.summary).toMatchObject({
      effects: {
        reads: ['memory_crystals'],
        writes: ['session_registry'],
        charges: ['tokens', 'compute'],
        audits: ['decision/rationale'],
      },
      capabilities: ['soul:read', 'atelier:write', 'void:sip'],
      category: 'mutation',
      deterministic: false,
    });
    expect(r.summary?.steps.map((s) => s.version)).toEqual([2, 1, 1]);
  });

  it('is the fold of composeEffects, so composition is associative', () => {
    const specs = manifest.verbs;
    for (const a of specs) {
      for (const b of specs) {
        const r = composePipeline(manifest, [
          `${a.name}@${String(a.version)}`,
          `${b.name}@${String(b.version)}`,
        ]);
        if (r.summary === undefined) continue;
        expect(r.summary.effects).toEqual(composeEffects(a.effects, b.effects));
      }
    }
    const ab_c = composePipeline(manifest, ['soul.memory.recall', 'town.citizen.greet', 'void.entropy.sip']);
    const manual = composeEffects(
      manifest.verbs[2]!.effects,
      composeEffects(manifest.verbs[3]!.effects, manifest.verbs[4]!.effects),
    );
    expect(ab_c.summary?.effects).toEqual(manual);
  });

  it('is a deterministic query only when every step is', () => {
    expect(composePipeline(manifest, ['soul.memory.recall']).summary).toMatchObject({
      category: 'query',
      deterministic: true,
    });
    expect(composePipeline(manifest, ['soul.memory.recall', 'town.citizen.list']).summary?.category).toBe(
      'stream',
    );
  });

  it('warns about deprecated eras and refuses unknown or malformed steps, naming each', () => {
    const r = composePipeline(manifest, [
      'soul.memory.recall@1',
      'soul.memory.recal',
      'atelier.session.start@9',
      'Bad',
    ]);
    expect(r.summary).toBeUndefined();
    expect(r.warnings).toEqual([
      'soul.memory.recall@1 is deprecated until 2025-12-01; use soul.memory.recall@2',
    ]);
    expect(r.errors).toEqual([
      'unknown verb soul.memory.recal; did you mean "soul.memory.recall"?',
      'atelier.session.start@9 is not declared; the manifest has atelier.session.start@1',
      'verb "Bad" has one segment; expected namespace.resource.action (or namespace.action)',
    ]);
    expect(composePipeline(manifest, []).errors).toEqual(['the pipeline is empty; name verbs as a,b,c']);
  });

  it('never picks a sunset era', () => {
    const m = loadManifest(
      'verbs:\n  a.b.c:\n    version: 1\n    status: sunset\n    deprecated: 2025-01-01\n    sunset: 2025-02-01\n    input: {}\n    output: {}\n    category: query\n',
      'm.yaml',
    ).manifest;
    expect(resolveStep(m, 'a.b.c')).toBe('every era of a.b.c is sunset');
    expect(resolveStep(m, 'a.b.c@1')).toBe('a.b.c@1 is sunset and no longer served');
  });
});
