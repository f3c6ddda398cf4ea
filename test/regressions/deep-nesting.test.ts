// Issue 11 item 5: a 10 KB body of 5,000 nested arrays gave HTTP 500 (stack overflow) on
// ESRP, Emergence and the peer route and −32603 over WebSocket; 257…~4,000 levels a retryable
// 503. Now every face counts the depth while decoding (limit 256) and answers its own
// bad-input error before any job exists: never 5xx, never retryable.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/core/recordable.js';
import { createNode, type Node } from '../../src/node/index.js';
import {
  esrpText,
  emergenceText,
  nestedArrays,
  openRpc,
  postText,
  type RawAnswer,
} from './support/faces-client.js';

let node: Node;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'plexus-deep-'));
  node = createNode({ dataDir: dir, port: 0, dev: true, store: 'memory', demo: true });
  await node.start();
});

afterAll(async () => {
  await node.stop();
  rmSync(dir, { recursive: true, force: true });
});

const DEPTHS = [MAX_JSON_DEPTH + 1, 300, 1000, 4000, 5000];

async function jobsSubmitted(): Promise<number> {
  return (await node.log.read({ type: 'job.submitted' })).length;
}

function expectClientError(answer: RawAnswer): void {
  expect(answer.status, answer.text.slice(0, 300)).toBe(400);
  expect(answer.retryAfter).toBeNull();
  expect(answer.text).toMatch(/nests deeper than 256 levels/);
}

describe('deep nesting on every face', () => {
  it('the 10 KB body of the report is 5,000 nested arrays', () => {
    expect(nestedArrays(5000).length).toBe(10_000);
  });

  for (const depth of DEPTHS) {
    it(`refuses ${depth} levels with each face's bad-input error, before any job`, async () => {
      const before = await jobsSubmitted();
      const deep = nestedArrays(depth);

      const esrp = await postText(`${node.url}/v1/execute`, esrpText('echo', 'echo', deep, randomUUID()));
      expectClientError(esrp);
      expect(esrp.body).toMatchObject({
        status: 'failed',
        error: { code: 'INVALID_INPUT_SCHEMA', retryable: false },
      });

      const emergence = await postText(
        `${node.url}/emergence`,
        emergenceText(randomUUID(), 'echo', deep, '"r"'),
      );
      expectClientError(emergence);
      expect(emergence.body).toMatchObject({ verb: 'ERROR', data: { code: 400 } });

      const peer = await postText(`${node.url}/v1/peer/invoke`, `{"_v":2,"d":${deep}}`);
      expectClientError(peer);
      // the peer route refuses in the ESRP form, its Plexus code in details (issue 11 item 1)
      expect(peer.body).toMatchObject({
        status: 'failed',
        error: { retryable: false, details: { plexus_code: 'INVALID_REQUEST' } },
      });

      const rpc = await openRpc(node.url);
      try {
        const reply = await rpc.ask(`{"jsonrpc":"2.0","id":7,"method":"echo.echo","params":{"x":${deep}}}`);
        expect(reply.error?.code).toBe(-32600);
        expect(reply.id).toBeNull();
        expect(JSON.stringify(reply.error?.data)).toMatch(/nests deeper than 256 levels/);
        expect(reply.error?.data).toMatchObject({ retryable: false });
      } finally {
        rpc.close();
      }
      expect(await jobsSubmitted()).toBe(before);
    });
  }

  it('accepts a message nested exactly 256 levels deep on every face', async () => {
    // ESRP: the input sits at /inputs/0/data (3 levels), so 253 more make 256.
    const esrp = await postText(
      `${node.url}/v1/execute`,
      esrpText('echo', 'echo', JSON.stringify(`{"x":${nestedArrays(MAX_JSON_DEPTH - 1)}}`), randomUUID()),
    );
    // (the JSON input is a string here, so the body itself is shallow; the decoded input is 256 deep)
    expect(esrp.status, esrp.text.slice(0, 300)).toBe(200);
    const emergence = await postText(
      `${node.url}/emergence`,
      emergenceText(randomUUID(), 'echo', `{"x":${nestedArrays(MAX_JSON_DEPTH - 2)}}`, '"r"'),
    );
    expect(emergence.status, emergence.text.slice(0, 300)).toBe(200);
    const rpc = await openRpc(node.url);
    try {
      const reply = await rpc.ask(
        `{"jsonrpc":"2.0","id":8,"method":"echo.echo","params":{"x":${nestedArrays(MAX_JSON_DEPTH - 2)}}}`,
      );
      expect(reply.error).toBeUndefined();
      expect(reply.id).toBe(8);
    } finally {
      rpc.close();
    }
  });

  it('refuses a deep application/json input inside an ESRP request with 400 before any job', async () => {
    const before = await jobsSubmitted();
    const esrp = await postText(
      `${node.url}/v1/execute`,
      esrpText('echo', 'echo', JSON.stringify(`{"x":${nestedArrays(5000)}}`), randomUUID()),
    );
    expect(esrp.status, esrp.text.slice(0, 300)).toBe(400);
    expect(esrp.retryAfter).toBeNull();
    expect(esrp.body).toMatchObject({ error: { code: 'INVALID_INPUT_SCHEMA', retryable: false } });
    expect(await jobsSubmitted()).toBe(before); // refused at the face, no job (was a failed job)
  });

  it('keeps serving', async () => {
    expect((await fetch(`${node.url}/healthz`)).status).toBe(200);
  });
});
