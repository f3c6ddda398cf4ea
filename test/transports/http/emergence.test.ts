import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/core/json.js';
import { validateEmergence } from '../../../src/wire/emergence/validate.js';
import { emergenceVerbName } from '../../../src/transports/http/index.js';
import { emergence, expectAlive, get, post, startNode, type TestNode } from './helpers.js';

describe('Emergence face', () => {
  let node: TestNode;
  beforeAll(async () => {
    node = await startNode();
  });
  afterAll(async () => {
    await node.close();
  });

  const send = (body: unknown) => post(`${node.base}/emergence`, body);

  function expectReplyTo(request: JsonObject, reply: JsonObject, verb: string): void {
    expect(validateEmergence(reply)).toEqual([]);
    expect(reply['id']).toBe(request['id']);
    expect(reply['from']).toBe(request['to']);
    expect(reply['to']).toBe(request['from']);
    expect(reply['verb']).toBe(verb);
  }

  describe('HELLO', () => {
    it('registers the sender as a remote card and answers DONE with the revision', async () => {
      const hello = emergence(
        'HELLO',
        { capabilities: ['translate', 'text.summarize'] },
        'did:key:z6MkTestNode',
        'agent_x',
      );
      const res = await send(hello);
      expect(res.status).toBe(200);
      expectReplyTo(hello, res.body, 'DONE');
      expect(res.body['data']).toEqual({ result: { registered: 'agent_x', revision: 1 } });
      const card = await get(`${node.base}/agents/agent_x`);
      expect(card.status).toBe(200);
      expect(card.body).toMatchObject({
        id: 'agent_x',
        origin: 'remote',
        tier: 'L3',
        protocols: ['emergence'],
        capabilities: [
          { verb: 'emergence.translate', input: true, output: true },
          { verb: 'text.summarize', input: true, output: true },
        ],
      });
      const again = await send({ ...hello, id: randomUUID() });
      // the same announcement again changes nothing (RT-054); a changed one is a new revision
      expect((again.body['data'] as JsonObject)['result']).toEqual({ registered: 'agent_x', revision: 1 });
      const changed = emergence('HELLO', { capabilities: ['translate'] }, 'did:key:z6MkTestNode', 'agent_x');
      const update = await send(changed);
      expect((update.body['data'] as JsonObject)['result']).toEqual({ registered: 'agent_x', revision: 2 });
    });

    it('refuses to let a HELLO replace an agent hosted by the node (409)', async () => {
      const hello = emergence('HELLO', { capabilities: ['x'] }, 'did:key:z6MkTestNode', 'echo');
      const res = await send(hello);
      expect(res.status).toBe(409);
      expectReplyTo(hello, res.body, 'ERROR');
      expect((res.body['data'] as JsonObject)['code']).toBe(409);
      expect((await get(`${node.base}/agents/echo`)).body['origin']).toBe('local');
    });

    it('answers a bad capability list with ERROR 400 naming each problem', async () => {
      const hello = emergence(
        'HELLO',
        { capabilities: ['ok', 'not a word!', 7] },
        'did:key:z6MkTestNode',
        'agent_bad',
      );
      const res = await send(hello);
      expect(res.status).toBe(400);
      expectReplyTo(hello, res.body, 'ERROR');
      const problems = ((res.body['_x_plexus_error'] as JsonObject)['details'] as JsonObject)[
        'problems'
      ] as JsonObject[];
      expect(problems.map((p) => p['pointer'])).toEqual(['/data/capabilities/1', '/data/capabilities/2']);
    });
  });

  describe('HELP', () => {
    it('runs the one verb of the addressed agent and answers DONE {result}', async () => {
      const help = emergence('HELP', { prompt: 'hello' }, 'echo');
      const res = await send(help);
      expect(res.status).toBe(200);
      expectReplyTo(help, res.body, 'DONE');
      expect(res.body['data']).toEqual({ result: { prompt: 'hello' } });
    });

    it('runs the verb named in data.verb, with data.input as the input', async () => {
      const help = emergence('HELP', { verb: 'translate', input: { text: 'hello' } }, 'translator');
      const res = await send(help);
      expect(res.status).toBe(200);
      expect(res.body['data']).toEqual({ result: { translated: { text: 'hello' } } });
    });

    it('sends a HELP to broadcast to whoever offers data.verb', async () => {
      const help = emergence('HELP', { verb: 'demo.echo', prompt: 'x' }, 'broadcast');
      const res = await send(help);
      expect(res.status).toBe(200);
      expect(validateEmergence(res.body)).toEqual([]);
      expect(res.body['from']).not.toBe('broadcast');
    });

    it('asks to name the verb when the agent offers several (ERROR 400)', async () => {
      const help = emergence('HELP', { x: 1 }, 'multi');
      const res = await send(help);
      expect(res.status).toBe(400);
      expectReplyTo(help, res.body, 'ERROR');
      expect((res.body['data'] as JsonObject)['msg']).toMatch(/name one in data\.verb/);
    });

    it('answers an unknown agent with ERROR 404 and a verb nobody offers with ERROR 501', async () => {
      const missing = await send(emergence('HELP', { x: 1 }, 'nobody'));
      expect(missing.status).toBe(404);
      expect((missing.body['data'] as JsonObject)['code']).toBe(404);
      const unknown = await send(emergence('HELP', { verb: 'nope.nothing' }, 'echo'));
      expect(unknown.status).toBe(501);
      expect((unknown.body['data'] as JsonObject)['code']).toBe(501);
      expect((unknown.body['_x_plexus_error'] as JsonObject)['code']).toBe('UNKNOWN_VERB');
    });

    it('answers a failing handler with ERROR carrying its code', async () => {
      const help = emergence('HELP', { verb: 'demo.fail' }, 'failing');
      const res = await send(help);
      expect(res.status).toBe(503);
      expectReplyTo(help, res.body, 'ERROR');
      expect(res.body['data']).toEqual({ code: 503, msg: 'the backend is down' });
    });

    it('runs a retried HELP (same id) once and answers it the same', async () => {
      const help = emergence('HELP', { once: randomUUID() }, 'echo');
      const before = node.calls.get('demo.echo') ?? 0;
      const a = await send(help);
      const b = await send(help);
      expect(b.body).toEqual(a.body);
      expect(b.headers.get('idempotent-replayed')).toBe('true');
      expect(node.calls.get('demo.echo')).toBe(before + 1);
      const c = await send({ ...help, id: randomUUID() });
      expect(c.status).toBe(200);
      expect(node.calls.get('demo.echo')).toBe(before + 2);
    });
  });

  describe('other verbs and bad input', () => {
    it('answers any other verb with ERROR 501', async () => {
      for (const verb of ['TRANSLATE', 'DONE', 'STREAM']) {
        const message = emergence(verb, verb === 'DONE' ? { result: 1 } : {}, 'echo');
        const res = await send(message);
        expect(res.status).toBe(501);
        expectReplyTo(message, res.body, 'ERROR');
        expect((res.body['data'] as JsonObject)['code']).toBe(501);
      }
    });

    it('answers a malformed message with HTTP 400 and an ERROR reusing what it can', async () => {
      const message: JsonObject = { ...emergence('HELP', {}, 'echo'), extra: 1, verb: 'help' };
      const res = await send(message);
      expect(res.status).toBe(400);
      expect(validateEmergence(res.body)).toEqual([]);
      expect(res.body['id']).toBe(message['id']);
      expect(res.body['to']).toBe('agent_b');
      expect(res.body['verb']).toBe('ERROR');
      const problems = ((res.body['_x_plexus_error'] as JsonObject)['details'] as JsonObject)[
        'problems'
      ] as JsonObject[];
      expect(problems.map((p) => p['pointer'])).toEqual(expect.arrayContaining(['/extra', '/verb']));
      await expectAlive(node);
    });

    it('answers broken JSON with HTTP 400 and an ERROR naming line and column', async () => {
      const res = await send('{"id": "x",\n "from": }');
      expect(res.status).toBe(400);
      expect(validateEmergence(res.body)).toEqual([]);
      expect(res.body['verb']).toBe('ERROR');
      expect((res.body['data'] as JsonObject)['msg']).toMatch(/line 2, column/);
      expect(res.body['from']).toBe('did:key:z6MkTestNode');
      await expectAlive(node);
    });

    it('answers a JSON value that is not an object with HTTP 400', async () => {
      const res = await send('[1,2]');
      expect(res.status).toBe(400);
      expect(res.body['verb']).toBe('ERROR');
      await expectAlive(node);
    });
  });
});

describe('emergenceVerbName', () => {
  it('keeps verb names, puts words in the emergence namespace, refuses the rest', () => {
    expect(emergenceVerbName('text.translate')).toBe('text.translate');
    expect(emergenceVerbName('translate')).toBe('emergence.translate');
    expect(emergenceVerbName('TRANSLATE')).toBe('emergence.translate');
    expect(emergenceVerbName('web-search')).toBeUndefined();
    expect(emergenceVerbName('')).toBeUndefined();
  });
});
