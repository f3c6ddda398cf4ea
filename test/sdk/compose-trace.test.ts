import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Envelope } from '../../src/core/envelope.js';
import { newTraceparent } from '../../src/sdk/index.js';
import { compress, shout, startSdk, store, type SdkHarness } from './sdk-fixtures.js';

describe('compose across spans', () => {
  let h: SdkHarness;
  beforeEach(async () => {
    h = await startSdk();
  });
  afterEach(async () => {
    await h.close();
  });

  it('names the pipeline’s span as the parent of every step’s span', async () => {
    const parent = newTraceparent();
    await h.plexus
      .compose(store, compress, shout)
      .run({ text: 'the quick brown fox' }, { traceparent: parent });
    const requests = (await h.log.read({ type: 'job.submitted' })).map(
      (e) => (e.data as unknown as { request: Envelope }).request,
    );
    expect(requests).toHaveLength(3);
    const parentSpan = parent.split('-')[2];
    for (const request of requests) {
      expect(request.extensions?.['_x_agentese_parent_span_id']).toBe(parentSpan);
      expect(request.traceparent?.split('-')[2]).not.toBe(parentSpan);
    }
  });
});
