/**
 * Test helpers for the HTTP faces: a node (memory log, runtime with test agents, fastify with
 * the faces) listening on 127.0.0.1 port 0, request builders, and an SSE reader.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { PlexusError } from '../../../src/core/errors.js';
import type { JsonObject, JsonValue } from '../../../src/core/json.js';
import type { Runtime } from '../../../src/runtime/index.js';
import type { Ed25519KeyPair } from '../../../src/security/index.js';
import type { EventLog } from '../../../src/store/index.js';
import type { FaceComponents } from '../../../src/transports/face-components.js';
import { registerHttpFaces, type HttpFacesInit } from '../../../src/transports/http/index.js';
import { agent } from '../../runtime/helpers.js';
import { startNode as startInProcessNode } from '../../support/start-node.js';

/** Resolves after `ms`, or rejects when `signal` aborts (handlers use it to wait). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(new PlexusError('CANCELLED', 'aborted'));
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new PlexusError('CANCELLED', 'aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function paramsOf(input: JsonValue): JsonObject {
  if (typeof input === 'object' && input !== null && !Array.isArray(input)) {
    const params = input['params'];
    if (typeof params === 'object' && params !== null && !Array.isArray(params)) return params;
    return input;
  }
  return {};
}

/** The test node. */
export interface TestNode {
  readonly app: FastifyInstance;
  /** `http://127.0.0.1:<port>`. */
  readonly base: string;
  readonly runtime: Runtime;
  readonly log: EventLog;
  /** Handler calls per verb. */
  readonly calls: Map<string, number>;
  /** The node key (tokens are issued with it when auth is on). */
  readonly key: Ed25519KeyPair;
  close(): Promise<void>;
}

/** Options of {@link startNode}. */
export interface StartNodeOptions {
  /** `anonymous` admits callers without a token (dev mode); `jwt` needs a node token. @default 'anonymous' */
  readonly auth?: 'anonymous' | 'jwt';
  readonly init?: HttpFacesInit;
  /** Replace components (e.g. a broken runtime). */
  readonly patch?: (components: FaceComponents) => FaceComponents;
}

/**
 * Starts a node with agents: `echo` (demo.echo: returns its input), `tts` (tts.synthesize:
 * ESRP-shaped outputs), `slow` (demo.slow: `params.steps` progress events `params.stepMs`
 * apart, honours cancellation), `failing` (demo.fail: UNAVAILABLE), `multi` (demo.one,
 * demo.two), `translator` (emergence.translate).
 */
export async function startNode(options: StartNodeOptions = {}): Promise<TestNode> {
  const calls = new Map<string, number>();
  const count = (verb: string): void => {
    calls.set(verb, (calls.get(verb) ?? 0) + 1);
  };
  const agents = [
    agent('echo', {
      'demo.echo': (input) => {
        count('demo.echo');
        return input;
      },
    }),
    agent('tts', {
      'tts.synthesize': (input) => {
        count('tts.synthesize');
        const params = paramsOf(input);
        return {
          outputs: [
            {
              name: 'audio',
              content_type: 'text/plain',
              data: 'synthesized',
              encoding: 'utf-8',
              metadata: { voice: params['voice'] ?? null },
            },
          ],
        };
      },
    }),
    agent('slow', {
      'demo.slow': async (input, context) => {
        count('demo.slow');
        const params = paramsOf(input);
        const steps = typeof params['steps'] === 'number' ? params['steps'] : 5;
        const stepMs = typeof params['stepMs'] === 'number' ? params['stepMs'] : 20;
        for (let i = 1; i <= steps; i++) {
          await sleep(stepMs, context.signal);
          context.progress({ step: i, of: steps });
        }
        return { steps };
      },
    }),
    agent('failing', {
      'demo.fail': () => {
        count('demo.fail');
        throw new PlexusError('UNAVAILABLE', 'the backend is down');
      },
    }),
    agent('multi', { 'demo.one': () => 1, 'demo.two': () => 2 }),
    agent('translator', {
      'emergence.translate': (input) => {
        count('emergence.translate');
        return { translated: input };
      },
    }),
  ];
  const node = await startInProcessNode({
    agents,
    nodeId: 'did:key:z6MkTestNode',
    auth: (key) =>
      (options.auth ?? 'anonymous') === 'anonymous'
        ? { allowAnonymous: true }
        : { jwt: { issuerKeys: [key] } },
    ...(options.patch === undefined ? {} : { patch: options.patch }),
    faces: {
      kind: 'fastify',
      options: { logger: false },
      register: (app, components) => registerHttpFaces(app, components, options.init),
    },
  });
  return {
    app: node.app,
    base: `http://127.0.0.1:${node.port}`,
    runtime: node.runtime,
    log: node.log,
    calls,
    key: node.key,
    close: () => node.close(),
  };
}

/** An ESRP request for `service.operation`; unique inputs unless `text` is given. */
export function esrpRequest(
  service: string,
  operation: string,
  params: JsonValue = null,
  extra: JsonObject = {},
  text: string = randomUUID(),
): JsonObject {
  return {
    esrp_version: '1.0',
    request_id: randomUUID(),
    timestamp: new Date().toISOString(),
    caller: { system: 'test' },
    target: { service, operation },
    inputs: [{ name: 'text', content_type: 'text/plain', data: text, encoding: 'utf-8' }],
    params,
    ...extra,
  };
}

/** An Emergence message. */
export function emergence(
  verb: string,
  data: JsonObject,
  to = 'echo',
  from = 'agent_b',
  id: string = randomUUID(),
): JsonObject {
  return { id, from, to, verb, data };
}

/** POSTs `body` (JSON-encoded unless a string) and returns the status, headers and parsed body. */
export async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: JsonObject }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as JsonObject };
}

/** GETs (or DELETEs) `url` and returns the status, headers and parsed body. */
export async function get(
  url: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ status: number; headers: Headers; body: JsonObject }> {
  const res = await fetch(url, { method, headers });
  return { status: res.status, headers: res.headers, body: (await res.json()) as JsonObject };
}

/** Checks that the node still answers `/healthz`. */
export async function expectAlive(node: TestNode): Promise<void> {
  const res = await fetch(`${node.base}/healthz`);
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ status: 'ok' });
}

/** One SSE message as received. */
export interface SseMessage {
  readonly event?: string;
  readonly id?: string;
  readonly data?: string;
  readonly comment?: string;
}

function parseSseBlock(block: string): SseMessage {
  const out: { event?: string; id?: string; data?: string; comment?: string } = {};
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) out.comment = line.slice(1).trim();
    else {
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') out.event = value;
      else if (field === 'id') out.id = value;
      else if (field === 'data') out.data = out.data === undefined ? value : `${out.data}\n${value}`;
    }
  }
  return out;
}

/**
 * Reads an SSE stream: every message until the server ends it, or until `stop(message,
 * events)` returns true (the client then disconnects).
 */
export async function readSse(
  url: string,
  headers: Record<string, string> = {},
  stop: (message: SseMessage, events: readonly SseMessage[]) => boolean = () => false,
): Promise<{
  status: number;
  contentType: string | null;
  messages: SseMessage[];
  events: SseMessage[];
  ended: boolean;
}> {
  const controller = new AbortController();
  const res = await fetch(url, { headers, signal: controller.signal });
  const messages: SseMessage[] = [];
  const events: SseMessage[] = [];
  if (res.body === null || !(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    return {
      status: res.status,
      contentType: res.headers.get('content-type'),
      messages,
      events,
      ended: true,
    };
  }
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let ended = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        ended = true;
        break;
      }
      buffer += decoder.decode(value as Uint8Array, { stream: true });
      let cut = buffer.indexOf('\n\n');
      let stopped = false;
      while (cut >= 0) {
        const message = parseSseBlock(buffer.slice(0, cut));
        buffer = buffer.slice(cut + 2);
        messages.push(message);
        if (message.event !== undefined) events.push(message);
        if (stop(message, events)) {
          stopped = true;
          break;
        }
        cut = buffer.indexOf('\n\n');
      }
      if (stopped) break;
    }
  } finally {
    controller.abort();
    await reader.cancel().catch(() => undefined);
  }
  return { status: res.status, contentType: res.headers.get('content-type'), messages, events, ended };
}
