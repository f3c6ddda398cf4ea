/**
 * The SDK call context of one A2A HTTP request: the protocol version it asked for and the
 * authenticated caller, whose signal aborts when the response closes (sent, or the client went
 * away) so a blocking send or a stream stops its work.
 */
import type { FastifyReply } from 'fastify';
import { ServerCallContext } from '@a2a-js/sdk/server';
import { setA2aCaller, type A2aCaller } from './job-task-handler.js';

/** The context of the request `reply` answers, for `caller`, and the controller its signal comes from. */
export function a2aCallContext(
  reply: FastifyReply,
  caller: Omit<A2aCaller, 'signal'>,
  version: string,
): { context: ServerCallContext; abort: AbortController } {
  const abort = new AbortController();
  reply.raw.once('close', () => {
    abort.abort();
  });
  const context = new ServerCallContext({ requestedVersion: version });
  setA2aCaller(context, { ...caller, signal: abort.signal });
  return { context, abort };
}
