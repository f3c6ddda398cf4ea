import { describe, expect, it } from 'vitest';
import * as plexus from '../src/index.js';

// The public API is a contract: adding or removing an export changes this snapshot, which
// must then be updated on purpose (`npx vitest run test/public-api.test.ts -u`).
describe('public API', () => {
  it('exports exactly the pinned names', async () => {
    const names = Object.keys(plexus).sort();
    await expect(`${names.join('\n')}\n`).toMatchFileSnapshot('./__snapshots__/public-api.txt');
  });
});
