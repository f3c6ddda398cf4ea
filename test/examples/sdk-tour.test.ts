import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT, built } from '../e2e/harness.js';

const run = promisify(execFile);
const TOUR = join(ROOT, 'examples', 'sdk-tour.js');

describe('examples/sdk-tour.js', () => {
  it('needs dist/', () => {
    expect(built(), 'run `npm run build` first').toBe(true);
  });

  it('defines, invokes, composes, queries and subscribes, then exits 0', async () => {
    const { stdout, stderr } = await run(process.execPath, [TOUR], { cwd: ROOT, timeout: 60_000 });
    expect(stderr).toBe('');
    const lines = stdout.trimEnd().split('\n');
    expect(lines).toEqual([
      'invoke soul.memory.recall -> {"text":"Tea at five with the whole town, in the rain"}',
      'refused: true (the diary is private)',
      'compose effects {"reads":["memory_crystals"],"calls":["summarizer"]} scopes concept:use,soul:read',
      'compose soul.memory.recall >> concept.summary.compress -> {"text":"Tea at five …"}',
      expect.stringMatching(/^trace [0-9a-f]{32}$/),
      'query soul.* -> soul.memory.recall, soul.memory.store',
      'event soul.memory.stored {"text":"Tea at five with the whole town, in the rain"}',
      'event soul.memory.stored {"text":"Rain all week"}',
      'remote invoke -> {"text":"one two three …"}',
      'tour done',
    ]);
  });

  it('leaves a log whose pipeline trace `plexus trace` draws', async () => {
    const { stdout } = await run(process.execPath, [TOUR, '--keep'], { cwd: ROOT, timeout: 60_000 });
    const traceId = /^trace ([0-9a-f]{32})$/m.exec(stdout)?.[1];
    const dataDir = /^data kept in (.+)$/m.exec(stdout)?.[1];
    expect(traceId).toBeDefined();
    expect(dataDir).toBeDefined();
    try {
      const drawn = await run(
        process.execPath,
        [BIN, 'trace', traceId!, '--data', dataDir!, '--width', '120'],
        {
          cwd: ROOT,
          timeout: 30_000,
        },
      );
      expect(drawn.stdout).toMatch(new RegExp(`^trace ${traceId} · 2 spans · `));
      expect(drawn.stdout).toMatch(/\nsoul\.memory\.recall\s+[0-9a-f]{16}\s.*ok.*\|/);
      expect(drawn.stdout).toMatch(/\nconcept\.summary\.compress\s+[0-9a-f]{16}\s.*ok.*\|/);
      expect(drawn.stdout).not.toContain('\u001b[');
    } finally {
      await rm(dataDir!, { recursive: true, force: true });
    }
  });
});
