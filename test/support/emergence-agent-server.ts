/**
 * A real HTTP server on 127.0.0.1 standing in for an agent that took HELPs at its own
 * endpoint: each request's body is recorded, and answered by `reply` (in order; the last
 * one repeats).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the fake agent answers one request with. */
export interface AgentReply {
  readonly status: number;
  /** A JSON value, or a function of the received message; a string is sent as is. */
  readonly body: unknown;
}

/** A running fake agent. */
export interface AgentServer {
  readonly url: string;
  /** The parsed bodies received, in order. */
  readonly received: Record<string, unknown>[];
  close(): Promise<void>;
}

/** Starts the fake agent on 127.0.0.1 at path `/agent`. */
export async function agentServer(
  replies: readonly (AgentReply | ((message: Record<string, unknown>) => AgentReply))[],
): Promise<AgentServer> {
  const received: Record<string, unknown>[] = [];
  const server: Server = createServer((request, response) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (text += chunk));
    request.on('end', () => {
      const message = JSON.parse(text) as Record<string, unknown>;
      received.push(message);
      const pick = replies[Math.min(received.length - 1, replies.length - 1)];
      const reply = typeof pick === 'function' ? pick(message) : pick;
      const body = reply === undefined ? '' : reply.body;
      response.writeHead(reply?.status ?? 500, { 'content-type': 'application/json' });
      response.end(typeof body === 'string' ? body : JSON.stringify(body));
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}/agent`,
    received,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => {
          done();
        });
      }),
  };
}

/** A DONE answering `message` with `result`. */
export function done(message: Record<string, unknown>, result: unknown): AgentReply {
  return {
    status: 200,
    body: { id: message['id'], from: message['to'], to: message['from'], verb: 'DONE', data: { result } },
  };
}

/** An ERROR answering `message`, sent with HTTP `status`. */
export function errorReply(message: Record<string, unknown>, status: number, msg: string): AgentReply {
  return {
    status,
    body: {
      id: message['id'],
      from: message['to'],
      to: message['from'],
      verb: 'ERROR',
      data: { code: status, msg },
    },
  };
}
