import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../src/core/json.js';
import { exchange, rawSocket, SPEC_ALIASES, startNode, type RawSocket, type TestNode } from './helpers.js';

interface SpecCase {
  readonly name: string;
  readonly request: string;
  readonly response: JsonValue;
}

const fixture = JSON.parse(
  readFileSync(new URL('../../fixtures/jsonrpc-2.0/spec_section7_examples.json', import.meta.url), 'utf8'),
) as { cases: SpecCase[] };

const SENTINEL = '{"jsonrpc":"2.0","method":"demo.echo","params":["sentinel"],"id":"sentinel"}';

/**
 * Sends one case and returns what the node answered. When the spec expects no answer, a
 * sentinel call follows and everything received before the sentinel's answer is the answer
 * (`null` when nothing came). Answers of concurrent messages may come in any order, so the
 * sentinel is only used where nothing is expected; a stray late answer shows up in the next
 * case or in the final check.
 */
async function answerTo(socket: RawSocket, request: string, expectNothing: boolean): Promise<JsonValue> {
  socket.send(request);
  if (!expectNothing) return socket.next();
  socket.send(SENTINEL);
  const before: JsonValue[] = [];
  for (;;) {
    const message = await socket.next();
    if (
      typeof message === 'object' &&
      message !== null &&
      !Array.isArray(message) &&
      message.id === 'sentinel'
    ) {
      expect(message).toEqual({ jsonrpc: '2.0', result: ['sentinel'], id: 'sentinel' });
      break;
    }
    before.push(message);
  }
  return before.length === 0 ? null : before.length === 1 ? (before[0] ?? null) : before;
}

/** The answer without the `data` members of errors (the fixture has none; ours carry ErrorData). */
function withoutErrorData(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(withoutErrorData);
  if (typeof value !== 'object' || value === null) return value;
  if (typeof value.error === 'object' && value.error !== null && !Array.isArray(value.error)) {
    const error = Object.fromEntries(Object.entries(value.error).filter(([key]) => key !== 'data'));
    return { ...value, error };
  }
  return value;
}

describe('Hyperspace face: JSON-RPC 2.0 spec §7 examples over a WebSocket', () => {
  describe('with aliases mapping the spec method names to verbs', () => {
    let node: TestNode;
    let socket: RawSocket;
    beforeAll(async () => {
      node = await startNode({ face: { methodAliases: SPEC_ALIASES } });
      socket = await rawSocket(`${node.base}/`, node.token);
    });
    afterAll(async () => {
      await socket.close();
      await node.close();
    });

    for (const c of fixture.cases) {
      it(`answers "${c.name}" as the spec shows`, async () => {
        const answer = await answerTo(socket, c.request, c.response === null);
        expect(withoutErrorData(answer)).toEqual(c.response);
      });
    }

    it('still answers a plain call after every case', async () => {
      expect(await exchange(socket, '{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":7}')).toEqual({
        jsonrpc: '2.0',
        result: 3,
        id: 7,
      });
    });
  });

  describe('without aliases (the spec method names are not Plexus verbs)', () => {
    let node: TestNode;
    let socket: RawSocket;
    beforeAll(async () => {
      node = await startNode();
      socket = await rawSocket(`${node.base}/rpc`, node.token);
    });
    afterAll(async () => {
      await socket.close();
      await node.close();
    });

    it('answers a single-segment method with −32601 Method not found, naming the problem in data', async () => {
      const answer = await exchange(socket, '{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}');
      expect(answer).toMatchObject({
        jsonrpc: '2.0',
        error: {
          code: -32601,
          message: 'Method not found',
          data: { code: 'UNKNOWN_VERB', retryable: false, details: { verb: 'subtract' } },
        },
        id: 1,
      });
      const data = (answer as { error: { data: { message: string } } }).error.data;
      expect(data.message).toContain('has one segment');
    });

    it('answers the protocol-level cases exactly as the spec shows', async () => {
      const protocolLevel = fixture.cases.filter((c) =>
        [
          'invalid JSON',
          'invalid Request object',
          'batch, invalid JSON',
          'empty array',
          'invalid batch (not empty)',
          'invalid batch',
          'non-existent method',
          'notification 1',
          'notification 2',
          'batch, all notifications',
        ].includes(c.name),
      );
      expect(protocolLevel).toHaveLength(10);
      for (const c of protocolLevel) {
        expect(withoutErrorData(await answerTo(socket, c.request, c.response === null)), c.name).toEqual(
          c.response,
        );
      }
    });

    it('answers the mixed batch with −32601 for each spec method that is not a verb', async () => {
      const c = fixture.cases.find((x) => x.name === 'batch');
      expect(c).toBeDefined();
      const answer = withoutErrorData(await answerTo(socket, c?.request ?? '', false));
      const notFound = (id: string) => ({
        jsonrpc: '2.0',
        error: { code: -32601, message: 'Method not found' },
        id,
      });
      expect(answer).toEqual([
        notFound('1'),
        notFound('2'),
        { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request' }, id: null },
        notFound('5'),
        notFound('9'),
      ]);
    });
  });
});
