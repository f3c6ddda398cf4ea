/**
 * Elicitation and sampling on the MCP face (docs/decisions/mcp.md MCP-50, MCP-51): a verb's
 * `ctx.requestInput` is asked of the calling client as `elicitation/create`, `ctx.sample` as
 * `sampling/createMessage` — on one real node on loopback, driven by the SDK's own `Client`.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  McpError,
  type CallToolResult,
  type ClientCapabilities,
  type CreateMessageResult,
  type ElicitRequest,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../src/core/json.js';
import type { VerbSpec } from '../../../src/core/records/verb-spec.js';
import { createNode, type Node } from '../../../src/node/node.js';
import { defineAgent, type HandlerContext } from '../../../src/runtime/index.js';
import { connectMcpClient } from '../../support/mcp-client.js';

type Handler = (input: JsonValue, context: HandlerContext) => JsonValue | Promise<JsonValue>;

const NAME_SCHEMA = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };

const VERBS: Record<string, Handler> = {
  'ask.name': async (_input, ctx) => ({
    hello: await ctx.requestInput('Your name?', { schema: NAME_SCHEMA }),
  }),
  'ask.plain': async (_input, ctx) => {
    const first = await ctx.requestInput('First word?');
    const second = await ctx.requestInput('Second word?', { schema: { type: 'integer' } });
    return { words: [first, second] };
  },
  'ask.nested': async (_input, ctx) => ({
    got: await ctx.requestInput('An address?', {
      schema: { type: 'object', properties: { address: { type: 'object' } } },
    }),
  }),
  'ask.sample': async (_input, ctx) => {
    const answer = await ctx.sample({
      messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }],
      maxTokens: 20,
    });
    return { said: answer.content, model: answer.model };
  },
  'ask.bad_sample': async (_input, ctx) => ({
    said: await ctx.sample({ messages: [{ role: 'robot', content: 'x' }], maxTokens: 5 }),
  }),
};

function spec(name: string): VerbSpec {
  return {
    name,
    version: 1,
    status: 'stable',
    input: { type: 'object' },
    output: { type: 'object' },
    effects: {},
    capabilities: [],
    category: 'mutation',
    deterministic: false,
    description: name,
  };
}

const asking = defineAgent({
  card: {
    id: 'ask',
    name: 'Ask',
    version: '1.0.0',
    tier: 'L3',
    capabilities: Object.keys(VERBS).map((verb) => ({
      verb,
      input: { type: 'object' },
      output: { type: 'object' },
    })),
  },
  verbs: Object.keys(VERBS).map(spec),
  create: () => VERBS,
});

let node: Node;
beforeAll(async () => {
  node = createNode({
    primitives: false,
    demo: false,
    store: 'memory',
    host: '127.0.0.1',
    port: 0,
    dev: true,
    agents: [asking],
  });
  await node.start();
});
afterAll(async () => {
  await node.stop({ drainMs: 0 });
});

const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
});

async function connect(capabilities: ClientCapabilities): Promise<Client> {
  const client = await connectMcpClient(node.url, { capabilities });
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, progress = false): Promise<CallToolResult> {
  return (await client.callTool(
    { name, arguments: {} },
    CallToolResultSchema,
    progress ? { onprogress: () => undefined } : {},
  )) as CallToolResult;
}

function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}

describe('ctx.requestInput as elicitation/create (MCP-50)', () => {
  it('asks the question with its schema and answers the job with the accepted content', async () => {
    const client = await connect({ elicitation: {} });
    const asked: ElicitRequest['params'][] = [];
    client.setRequestHandler(ElicitRequestSchema, (request): ElicitResult => {
      asked.push(request.params);
      return { action: 'accept', content: { name: 'Ada' } };
    });
    const result = await call(client, 'Ask.ask.name');
    expect(result.isError).not.toBe(true);
    expect(JSON.parse(textOf(result))).toEqual({ hello: { name: 'Ada' } });
    expect(asked).toEqual([{ message: 'Your name?', requestedSchema: NAME_SCHEMA, mode: 'form' }]);
  });

  it('asks one field `answer` for a question without an object schema, each question in turn, with progress', async () => {
    const client = await connect({ elicitation: {} });
    const schemas: unknown[] = [];
    client.setRequestHandler(ElicitRequestSchema, (request): ElicitResult => {
      const schema = 'requestedSchema' in request.params ? request.params.requestedSchema : undefined;
      schemas.push(schema?.properties['answer']);
      return { action: 'accept', content: { answer: schemas.length === 1 ? 'hello' : 7 } };
    });
    const result = await call(client, 'Ask.ask.plain', true);
    expect(JSON.parse(textOf(result))).toEqual({ words: ['hello', 7] });
    expect(schemas).toEqual([{ type: 'string', title: 'Answer' }, { type: 'integer' }]);
  });

  it('cancels the job when the client declines, and says so', async () => {
    const client = await connect({ elicitation: {} });
    client.setRequestHandler(ElicitRequestSchema, (): ElicitResult => ({ action: 'decline' }));
    const result = await call(client, 'Ask.ask.name');
    expect(result.isError).toBe(true);
    expect(result._meta?.['plexus/code']).toBe('CANCELLED');
    expect(textOf(result)).toContain('declined the input request "Your name?"');
  });

  it('refuses accepted content that does not match the question, and cancels the job', async () => {
    const client = await connect({ elicitation: {} });
    client.setRequestHandler(ElicitRequestSchema, (): ElicitResult => ({
      action: 'accept',
      content: { name: 42 },
    }));
    const result = await call(client, 'Ask.ask.name');
    expect(result.isError).toBe(true);
    expect(result._meta?.['plexus/code']).toBe('INVALID_PARAMS');
    const jobs = await node.runtime.jobs.list({ verb: 'ask.name' });
    expect(jobs.jobs.filter((j) => j.state === 'INPUT_REQUIRED')).toEqual([]);
  });

  it('leaves the job waiting with CONFLICT when the client cannot elicit or the schema is not a form', async () => {
    const plain = await connect({});
    const without = await call(plain, 'Ask.ask.name');
    expect(without._meta?.['plexus/code']).toBe('CONFLICT');
    expect(textOf(without)).toContain('waits for input: Your name?');
    const withProgress = await call(plain, 'Ask.ask.name', true);
    expect(textOf(withProgress)).toContain('did not declare the elicitation capability');

    const eliciting = await connect({ elicitation: {} });
    let asked = 0;
    eliciting.setRequestHandler(ElicitRequestSchema, (): ElicitResult => {
      asked++;
      return { action: 'cancel' };
    });
    const nested = await call(eliciting, 'Ask.ask.nested');
    expect(nested._meta?.['plexus/code']).toBe('CONFLICT');
    expect(textOf(nested)).toContain('not one an MCP elicitation form can ask');
    expect(asked).toBe(0);
  });
});

describe('ctx.sample as sampling/createMessage (MCP-51)', () => {
  it("answers with the client's message", async () => {
    const client = await connect({ sampling: {} });
    const seen: unknown[] = [];
    client.setRequestHandler(CreateMessageRequestSchema, (request): CreateMessageResult => {
      seen.push(request.params);
      return {
        role: 'assistant',
        content: { type: 'text', text: 'hi' },
        model: 'm-1',
        stopReason: 'endTurn',
      };
    });
    const result = await call(client, 'Ask.ask.sample');
    expect(JSON.parse(textOf(result))).toEqual({ said: { type: 'text', text: 'hi' }, model: 'm-1' });
    expect(seen).toEqual([
      { messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }], maxTokens: 20 },
    ]);
  });

  it('fails PRECONDITION_FAILED without a sampling client, and over another face', async () => {
    const client = await connect({});
    const result = await call(client, 'Ask.ask.sample');
    expect(result._meta?.['plexus/code']).toBe('PRECONDITION_FAILED');
    expect(textOf(result)).toContain('ctx.sample needs a caller that can sample');
    const answer = await node.runtime.invoke(
      { id: 'sample-1', kind: 'request', from: 'test', to: 'ask', verb: 'ask.sample', data: {} },
      { face: 'internal' },
    );
    expect(answer.envelope.kind).toBe('error');
    expect((answer.envelope.data as { code: string }).code).toBe('PRECONDITION_FAILED');
  });

  it('refuses a malformed request before the client sees it; maps the client’s refusal', async () => {
    const client = await connect({ sampling: {} });
    let asked = 0;
    client.setRequestHandler(CreateMessageRequestSchema, () => {
      asked++;
      throw new McpError(-1, 'the user said no');
    });
    const bad = await call(client, 'Ask.ask.bad_sample');
    expect(bad._meta?.['plexus/code']).toBe('INVALID_PARAMS');
    expect(asked).toBe(0);
    const refused = await call(client, 'Ask.ask.sample');
    expect(refused._meta?.['plexus/code']).toBe('UNAVAILABLE');
    expect(textOf(refused)).toContain('the user said no');
    expect(asked).toBe(1);
  });
});
