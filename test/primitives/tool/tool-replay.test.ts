import { afterEach, describe, expect, it } from 'vitest';
import { TOOL_PROJECTIONS, toolRegistryProjection } from '../../../src/primitives/tool/index.js';
import { projectionText, rebuildProjection } from '../../../src/store/index.js';
import { LOG_BACKENDS, type LogUnderTest } from '../../runtime/helpers.js';
import { registerWebSearch, startToolHarness, type ToolHarness } from './tool-harness.js';

let h: ToolHarness | undefined;
let under: LogUnderTest | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  await under?.cleanup();
  under = undefined;
});

describe('tool primitive replay', () => {
  it('exports its projections', () => {
    expect(TOOL_PROJECTIONS.map((p) => p.name)).toEqual(['tool.registry', 'tool.remote-stats']);
  });

  for (const backend of LOG_BACKENDS) {
    it(`rebuilds the registry and analytics from the ${backend.name} log, byte for byte`, async () => {
      under = await backend.make();
      h = await startToolHarness(under.log);
      const toolId = await registerWebSearch(h);
      await registerWebSearch(h, { description: 'updated' });
      const { toolId: flaky } = (await h.ok('tool.register', {
        name: 'flaky-search',
        description: 'rate limited',
        schema: { input: true, output: true },
        capabilities: ['search'],
        verb: 'search.flaky',
      })) as { toolId: string };
      await h.ok('tool.invoke', { toolId, params: { query: 'battery' } });
      await h.fail('tool.invoke', { toolId: flaky, params: { fail: true } });
      const live = h.tool.views[0]!;
      const rebuilt = await rebuildProjection(under.log, toolRegistryProjection);
      expect(rebuilt.state.tools.size).toBe(2);
      expect(projectionText(toolRegistryProjection, rebuilt.state)).toBe(
        projectionText(toolRegistryProjection, live.state() as never),
      );
      const json = toolRegistryProjection.toJson!(rebuilt.state);
      expect(projectionText(toolRegistryProjection, toolRegistryProjection.fromJson!(json))).toBe(
        projectionText(toolRegistryProjection, rebuilt.state),
      );

      // A restart over the same storage answers the same.
      const before = await h.ok('tool.getAnalytics', { toolId });
      const listed = await h.ok('tool.listRegistered', null);
      await h.close(true);
      await under.log.stop();
      h = await startToolHarness(under.reopen());
      expect(await h.ok('tool.getAnalytics', { toolId })).toEqual(before);
      expect(await h.ok('tool.listRegistered', null)).toEqual(listed);
      expect(await registerWebSearch(h)).toBe(toolId);
    });
  }
});
