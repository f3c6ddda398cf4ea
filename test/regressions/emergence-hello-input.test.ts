import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import { emergence, expectAlive, get, post, startNode, type TestNode } from '../transports/http/helpers.js';

// Issue 11 item 4: HELLO registered agent ids with control characters, NUL or any length.
// They are refused with an Emergence ERROR 400 naming the field; nothing is registered.

let node: TestNode;
beforeAll(async () => {
  node = await startNode();
});
afterAll(async () => {
  await node.close();
});

const BAD_IDS: readonly [string, string][] = [
  ['a NUL', 'agent\u0000x'],
  ['a newline', 'agent\nx'],
  ['an escape', '\u001b[31mred'],
  ['a DEL', 'agent\u007f'],
  ['a C1 control', 'agent\u0085x'],
  ['129 characters', 'a'.repeat(129)],
  ['129 astral characters', '😀'.repeat(129)],
];

describe('HELLO agent ids', () => {
  for (const [what, id] of BAD_IDS) {
    it(`refuses an id with ${what}: ERROR 400, nothing registered`, async () => {
      const res = await post(
        `${node.base}/emergence`,
        emergence('HELLO', { capabilities: ['x'] }, 'broadcast', id),
      );
      expect(res.status).toBe(400);
      expect(res.body['verb']).toBe('ERROR');
      const data = res.body['data'] as JsonObject;
      expect(data['code']).toBe(400);
      expect(data['msg']).toMatch(/"from"/);
      const agents = (await get(`${node.base}/agents`)).body['agents'] as { id: string }[];
      expect(agents.map((a) => a.id)).not.toContain(id);
    });
  }

  it('refuses a HELP addressed to such an id the same way', async () => {
    const res = await post(`${node.base}/emergence`, emergence('HELP', {}, 'bad\u0000to'));
    expect(res.status).toBe(400);
    expect((res.body['data'] as JsonObject)['msg']).toMatch(/"to"/);
  });

  it('accepts 128 characters, and 128 astral characters', async () => {
    for (const id of ['b'.repeat(128), '😀'.repeat(128)]) {
      const res = await post(
        `${node.base}/emergence`,
        emergence('HELLO', { capabilities: ['x'] }, 'broadcast', id),
      );
      expect(res.status).toBe(200);
    }
    await expectAlive(node);
  });
});
