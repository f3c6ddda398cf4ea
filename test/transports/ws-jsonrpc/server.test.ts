import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_HINT_DEFAULTS } from '../../../src/core/error-recovery.js';
import { ERROR_TABLE } from '../../../src/core/errors.js';
import type { JsonValue } from '../../../src/core/json.js';
import { WS_STREAM_METHOD } from '../../../src/transports/ws-jsonrpc/index.js';
import { exchange, rawSocket, startNode, type RawSocket, type TestNode } from './helpers.js';
import { until } from '../../support/until.js';

const call = (method: string, params: JsonValue | undefined, id: JsonValue): string =>
  JSON.stringify(
    params === undefined ? { jsonrpc: '2.0', method, id } : { jsonrpc: '2.0', method, params, id },
  );

describe('attachWsJsonRpc', () => {
  let node: TestNode;
  let socket: RawSocket;
  beforeAll(async () => {
    node = await startNode();
  });
  afterAll(async () => {
    await node.close();
  });
  afterEach(async () => {
    await socket.close();
  });
  const open = async (): Promise<RawSocket> => {
    socket = await rawSocket(`${node.base}/`, node.token);
    return socket;
  };

  describe('calls', () => {
    it('answers a call with the verb’s result and the same id', async () => {
      await open();
      expect(await exchange(socket, call('demo.echo', { text: 'hi' }, 1))).toEqual({
        jsonrpc: '2.0',
        result: { text: 'hi' },
        id: 1,
      });
      expect(await exchange(socket, call('demo.echo', ['a', 2], 'abc'))).toEqual({
        jsonrpc: '2.0',
        result: ['a', 2],
        id: 'abc',
      });
      expect(await exchange(socket, call('demo.echo', undefined, null))).toEqual({
        jsonrpc: '2.0',
        result: null,
        id: null,
      });
    });

    it('answers nothing to a notification, but runs it', async () => {
      await open();
      socket.send(JSON.stringify({ jsonrpc: '2.0', method: 'demo.counter' }));
      await until(() => node.probe.counter >= 1);
      const before = node.probe.counter;
      expect(await exchange(socket, call('demo.counter', undefined, 'after'))).toEqual({
        jsonrpc: '2.0',
        result: before + 1,
        id: 'after',
      });
    });

    it('runs two identical calls twice (each JSON-RPC call is its own job)', async () => {
      await open();
      const first = await exchange(socket, call('demo.counter', {}, 1));
      const second = await exchange(socket, call('demo.counter', {}, 1));
      expect((second as { result: number }).result).toBe((first as { result: number }).result + 1);
    });

    it('runs calls with the same _x_idempotency_key once and answers the repeat with the first result', async () => {
      await open();
      const params = { _x_idempotency_key: 'once-only' };
      const first = (await exchange(socket, call('demo.counter', params, 1))) as { result: number };
      const second = (await exchange(socket, call('demo.counter', params, 2))) as { result: number };
      expect(second).toEqual({ jsonrpc: '2.0', result: first.result, id: 2 });
    });

    it('keeps a made-up key only for its job’s timeout, an explicit key for the whole window', async () => {
      await open();
      await exchange(socket, call('demo.echo', { made: 'up' }, 'm'));
      await exchange(socket, call('demo.echo', { _x_idempotency_key: 'kept', _x_timeout_ms: 5000 }, 'k'));
      const submitted = (await node.log.read({ type: 'job.submitted', limit: 100_000 })) as unknown as {
        data: { idempotencyKey?: string; windowMs: number; timeoutMs: number };
      }[];
      const made = submitted.find((e) => e.data.idempotencyKey?.startsWith('hyperspace:'));
      const kept = submitted.find((e) => e.data.idempotencyKey === 'kept');
      // no caller can send a made-up key again: it answers duplicates only while its job can run
      expect(made?.data.windowMs).toBe(made?.data.timeoutMs);
      expect(kept?.data.windowMs).toBe(600_000);
    });

    it('answers a batch of calls, notifications and invalid members in one array, in request order', async () => {
      await open();
      const batch = [
        { jsonrpc: '2.0', method: 'demo.echo', params: [1], id: 'a' },
        { jsonrpc: '2.0', method: 'demo.counter' },
        { nope: true },
        { jsonrpc: '2.0', method: 'demo.nothing_here', id: 'b' },
        { jsonrpc: '2.0', method: 'demo.fail', params: { code: 'RATE_LIMITED' }, id: 'c' },
        { jsonrpc: '2.0', method: 'demo.echo', params: { x: 2 }, id: 'd' },
      ];
      const answer = (await exchange(socket, JSON.stringify(batch))) as { id: JsonValue }[];
      expect(answer.map((a) => a.id)).toEqual(['a', null, 'b', 'c', 'd']);
      expect(answer[0]).toEqual({ jsonrpc: '2.0', result: [1], id: 'a' });
      expect(answer[1]).toEqual({
        jsonrpc: '2.0',
        error: { code: -32600, message: 'Invalid Request' },
        id: null,
      });
      expect(answer[2]).toMatchObject({ error: { code: -32601, message: 'Method not found' } });
      expect(answer[3]).toMatchObject({
        error: { code: -32003, data: { code: 'RATE_LIMITED', retryable: true } },
      });
      expect(answer[4]).toEqual({ jsonrpc: '2.0', result: { x: 2 }, id: 'd' });
    });
  });

  describe('errors (D10, Hyperspace codes)', () => {
    it('answers an unknown verb with −32601 and the ErrorData as data', async () => {
      await open();
      expect(await exchange(socket, call('demo.missing', {}, 5))).toEqual({
        jsonrpc: '2.0',
        error: {
          code: -32601,
          message: 'Method not found',
          data: {
            verb: 'demo.missing',
            code: 'UNKNOWN_VERB',
            message: expect.stringContaining('demo.missing'),
            retryable: false,
            details: { verb: 'demo.missing' },
            // the recovery fields of seed 002 §8.2
            category: 'not_found',
            suggested_action: ERROR_HINT_DEFAULTS.UNKNOWN_VERB.suggestedAction,
          },
        },
        id: 5,
      });
    });

    it('answers input the verb’s schema refuses with −32602 and the pointer of the bad value', async () => {
      await open();
      const answer = (await exchange(socket, call('demo.strict', { n: 'seven' }, 6))) as {
        error: {
          code: number;
          message: string;
          data: { code: string; details: { problems: { pointer: string }[] } };
        };
      };
      expect(answer.error.code).toBe(-32602);
      expect(answer.error.message).toBe('Invalid params');
      expect(answer.error.data.code).toBe('INVALID_PARAMS');
      expect(answer.error.data.details.problems[0]?.pointer).toBe('/n');
    });

    it.each([
      ['BUDGET_EXCEEDED', -32002, false],
      ['RATE_LIMITED', -32003, true],
      ['SAFETY_VIOLATION', -32004, false],
      ['LOOP_DETECTED', -32005, false],
      ['PEER_UNAVAILABLE', -32006, true],
      ['REPLICATION_FAILED', -32007, true],
      ['TRAJECTORY_REJECTED', -32008, false],
      ['SESSION_NOT_FOUND', -32001, false],
      ['CONFLICT', -32603, false],
    ] as const)(
      'answers a handler’s %s with %i, its own message and details',
      async (code, number, retryable) => {
        await open();
        const answer = await exchange(socket, call('demo.fail', { code, message: `no: ${code}` }, code));
        expect(answer).toEqual({
          jsonrpc: '2.0',
          error: {
            code: number,
            message: `no: ${code}`,
            // The details also sit at the top of `data`, where the seed's clients read them.
            data: {
              asked: code,
              code,
              message: `no: ${code}`,
              retryable,
              details: { asked: code },
              // the recovery fields of seed 002 §8.2
              category: ERROR_TABLE[code].category,
              ...(retryable ? { retry_after: ERROR_HINT_DEFAULTS[code].retryAfter } : {}),
              suggested_action: ERROR_HINT_DEFAULTS[code].suggestedAction,
              verb: 'demo.fail',
            },
          },
          id: code,
        });
      },
    );

    it('answers a crashing handler with −32603 without leaking a stack', async () => {
      await open();
      const answer = (await exchange(socket, call('demo.crash', {}, 'x'))) as {
        error: { code: number; data: { code: string } };
      };
      expect(answer.error.code).toBe(-32603);
      expect(answer.error.data.code).toBe('INTERNAL');
      expect(JSON.stringify(answer)).not.toContain('at ');
    });

    it('answers bad control members with −32602 pointing at them', async () => {
      await open();
      for (const [key, value] of [
        ['_x_timeout_ms', 0],
        ['_x_timeout_ms', 'soon'],
        ['_x_stream', 'yes'],
        ['_x_idempotency_key', ''],
      ] as const) {
        const answer = await exchange(socket, call('demo.echo', { [key]: value }, key));
        expect(answer, `${key}=${String(value)}`).toMatchObject({
          error: { code: -32602, data: { code: 'INVALID_PARAMS', details: { pointer: `/params/${key}` } } },
          id: key,
        });
      }
    });

    it('strips the control members before the verb sees its input', async () => {
      await open();
      expect(
        await exchange(socket, call('demo.echo', { a: 1, _x_timeout_ms: 5000, _x_other: true }, 1)),
      ).toEqual({ jsonrpc: '2.0', result: { a: 1, _x_other: true }, id: 1 });
    });

    it('fails a job that outlives _x_timeout_ms with a retryable TIMEOUT', async () => {
      await open();
      const answer = await exchange(socket, call('demo.hold', { _x_timeout_ms: 20 }, 't'));
      expect(answer).toMatchObject({
        error: { code: -32603, data: { code: 'TIMEOUT', retryable: true } },
        id: 't',
      });
    });
  });

  describe('streaming', () => {
    it('sends a stream verb’s progress as stream.data notifications, in order, before the answer', async () => {
      await open();
      socket.send(call('demo.count', { n: 5 }, 'job-1'));
      const received: JsonValue[] = [];
      for (;;) {
        const message = (await socket.next()) as { method?: string };
        received.push(message);
        if (message.method === undefined) break;
      }
      expect(received).toHaveLength(6);
      const chunks = received.slice(0, 5) as {
        method: string;
        params: { id: string; seq: number; data: JsonValue; job: string };
      }[];
      expect(chunks.map((c) => c.method)).toEqual(Array(5).fill(WS_STREAM_METHOD));
      expect(chunks.map((c) => c.params.seq)).toEqual([1, 2, 3, 4, 5]);
      expect(chunks.map((c) => c.params.data)).toEqual([1, 2, 3, 4, 5].map((i) => ({ i })));
      expect(new Set(chunks.map((c) => c.params.id))).toEqual(new Set(['job-1']));
      const job = chunks[0]?.params.job ?? '';
      expect(chunks.every((c) => c.params.job === job)).toBe(true);
      expect(received[5]).toEqual({ jsonrpc: '2.0', result: { count: 5 }, id: 'job-1' });
      expect((await node.runtime.jobs.get(job)).state).toBe('COMPLETED');
    });

    it('streams any verb when the call asks with _x_stream: true', async () => {
      await open();
      socket.send(call('demo.ticks', { n: 2, _x_stream: true }, 9));
      expect(await socket.next()).toMatchObject({
        method: 'stream.data',
        params: { id: 9, seq: 1, data: 'tick 1' },
      });
      expect(await socket.next()).toMatchObject({
        method: 'stream.data',
        params: { id: 9, seq: 2, data: 'tick 2' },
      });
      expect(await socket.next()).toEqual({ jsonrpc: '2.0', result: 'done', id: 9 });
    });

    it('does not stream a query verb by default, nor a stream verb with _x_stream: false', async () => {
      await open();
      expect(await exchange(socket, call('demo.ticks', { n: 3 }, 1))).toEqual({
        jsonrpc: '2.0',
        result: 'done',
        id: 1,
      });
      expect(await exchange(socket, call('demo.count', { n: 3, _x_stream: false }, 2))).toEqual({
        jsonrpc: '2.0',
        result: { count: 3 },
        id: 2,
      });
    });

    it('answers a failing streaming call with its error after the chunks sent so far', async () => {
      await open();
      expect(
        await exchange(socket, call('demo.fail', { code: 'BUDGET_EXCEEDED', _x_stream: true }, 'f')),
      ).toMatchObject({
        error: { code: -32002, data: { code: 'BUDGET_EXCEEDED' } },
        id: 'f',
      });
    });
  });

  describe('robustness', () => {
    it('answers broken JSON with −32700 and id null, and the connection stays usable', async () => {
      await open();
      for (const text of ['{"jsonrpc": "2.0", "method": ', 'nope', '', '[{"jsonrpc":"2.0"},', '\u0000']) {
        expect(await exchange(socket, text)).toEqual({
          jsonrpc: '2.0',
          error: { code: -32700, message: 'Parse error' },
          id: null,
        });
      }
      expect(await exchange(socket, call('demo.echo', [1], 1))).toEqual({
        jsonrpc: '2.0',
        result: [1],
        id: 1,
      });
    });

    it('answers a binary frame with −32600 and keeps the connection', async () => {
      await open();
      socket.send(Buffer.from(call('demo.echo', [1], 1)), true);
      expect(await socket.next()).toMatchObject({
        error: { code: -32600, data: { code: 'INVALID_REQUEST' } },
        id: null,
      });
      expect(await exchange(socket, call('demo.echo', [2], 2))).toEqual({
        jsonrpc: '2.0',
        result: [2],
        id: 2,
      });
    });

    it('answers wrong shapes with −32600 and keeps serving', async () => {
      await open();
      for (const text of [
        '42',
        '"text"',
        'null',
        '{"jsonrpc":"1.0","method":"demo.echo","id":1}',
        '{"jsonrpc":"2.0","method":"demo.echo","params":5,"id":1}',
      ]) {
        expect(await exchange(socket, text), text).toMatchObject({ error: { code: -32600 } });
      }
      expect(await exchange(socket, call('demo.echo', [3], 3))).toEqual({
        jsonrpc: '2.0',
        result: [3],
        id: 3,
      });
    });

    it('serves thousands of messages on one connection', async () => {
      await open();
      const total = 2000;
      const answers = new Map<JsonValue, JsonValue>();
      for (let i = 0; i < total; i++) socket.send(call('demo.echo', [i], i));
      while (answers.size < total) {
        const a = (await socket.next()) as { id: JsonValue; result: JsonValue };
        answers.set(a.id, a.result);
      }
      expect(answers.size).toBe(total);
      for (let i = 0; i < total; i += 97) expect(answers.get(i)).toEqual([i]);
    });

    it('cancels a call in flight when its connection closes', async () => {
      await open();
      const before = node.probe.stopped.length;
      socket.send(call('demo.hold', {}, 'h'));
      await until(() => node.probe.held.length > 0);
      await socket.close();
      await until(() => node.probe.stopped.length > before);
      expect(node.probe.stopped.at(-1)).toBe('aborted');
      node.probe.held.splice(0);
    });
  });
});
