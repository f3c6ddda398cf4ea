/**
 * The replay check the primitive harnesses share: a rebuild of each projection from the log
 * must equal its live view, byte for byte (their canonical texts).
 */
import type { EventLog } from '../../src/store/event-log.js';
import { projectionText, rebuildProjection, type Projection } from '../../src/store/projection.js';
import type { ProjectionView } from '../../src/store/projection-view.js';

/** The live view of each projection among `views` (by name); throws when one has none. */
export function viewsOf(
  projections: readonly Projection<unknown>[],
  views: readonly ProjectionView<unknown>[],
): ProjectionView<unknown>[] {
  return projections.map((projection) => {
    const view = views.find((v) => v.name === projection.name);
    if (view === undefined) throw new Error(`no live view ${projection.name}`);
    return view;
  });
}

/**
 * Rebuilds each projection from `log` and throws, naming the projection and both texts, when
 * the rebuild differs from the live view. Returns the live texts, in order, for extra checks.
 */
export async function expectRebuildEqualsLive(
  log: EventLog,
  views: readonly ProjectionView<unknown>[],
): Promise<string[]> {
  const texts: string[] = [];
  for (const view of views) {
    const { projection } = view;
    const rebuilt = await rebuildProjection(log, projection);
    const live = projectionText(projection, view.state());
    const fromLog = projectionText(projection, rebuilt.state);
    if (live !== fromLog) {
      throw new Error(`projection ${projection.name}: live ${live} != rebuilt ${fromLog}`);
    }
    texts.push(live);
  }
  return texts;
}
