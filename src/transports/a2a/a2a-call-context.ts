/**
 * The SDK call context of one A2A HTTP request: the protocol version it asked for and the
 * authenticated caller, whose signal aborts when the response closes before it was sent (the
 * client went away) so a blocking send or a stream stops its work. A response sent whole has no
 * work left behind it: its signal is left as it is (docs/decisions/a2a.md A2A-29; aborting
 * costs an `Error` with its stack and an event, every request).
 */
import type { FastifyReply } from 'fastify';
import { ServerCallContext } from '@a2a-js/sdk/server';
import type { A2aEndpoint } from './a2a-endpoint.js';
import { setA2aCaller, setA2aEndpoint, type A2aCaller } from './job-task-handler.js';

/**
 * The context of the request `reply` answers, for `caller` at `endpoint`, and the controller its
 * signal comes from.
 */
export function a2aCallContext(
  reply: FastifyReply,
  caller: Omit<A2aCaller, 'signal'>,
  version: string,
  endpoint: A2aEndpoint,
): { context: ServerCallContext; abort: AbortController } {
  const abort = new AbortController();
  const raw = reply.raw;
  raw.once('close', () => {
    if (!raw.writableFinished) abort.abort();
  });
  const context = new ServerCallContext({ requestedVersion: version });
  setA2aCaller(context, { ...caller, signal: abort.signal });
  setA2aEndpoint(context, endpoint);
  return { context, abort };
}
