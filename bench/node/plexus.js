// Requests and answer checks for the Plexus faces of bench/node.bench.js. Each request carries
// the same payload as the baselines (./baselines.js `payload`), different for every index:
// the ESRP face deduplicates identical requests (D5), and an answer from the idempotency
// cache is not an invocation.
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { a2aSendMessage, payload } from './baselines.js';

/**
 * A synchronous ESRP v1 request for `echo.echo` (`target` = the echo agent's service and
 * operation). The payload travels as the input named `input` with JSON content: the demo
 * agents read that input as their whole plain input, so echo answers with the payload itself.
 * @param {number} i the request index
 */
export function esrpEchoRequest(i) {
  return {
    esrp_version: '1.0',
    request_id: randomUUID(),
    timestamp: new Date().toISOString(),
    caller: { system: 'bench' },
    target: { service: 'echo', operation: 'echo' },
    mode: { type: 'sync', timeout_ms: 30_000 },
    inputs: [
      {
        name: 'input',
        content_type: 'application/json',
        data: JSON.stringify(payload(i)),
        encoding: 'utf-8',
        metadata: {},
      },
    ],
    params: {},
  };
}

/**
 * Whether `answer` is the ESRP response to `request` from the echo verb: the same
 * `request_id`, status `succeeded`, and an output named `result` (how the ESRP face carries
 * non-ESRP handler output: `application/json`, `utf-8`, canonical JSON text) whose data parses
 * to the payload that was sent.
 * @param {ReturnType<typeof esrpEchoRequest>} request
 * @param {any} answer
 */
export function esrpEchoCheck(request, answer) {
  if (answer?.status !== 'succeeded' || answer.request_id !== request.request_id) return false;
  const outputs = Array.isArray(answer.outputs) ? answer.outputs : [];
  const result = outputs.find((/** @type {any} */ o) => o?.name === 'result');
  if (result?.content_type !== 'application/json' || typeof result.data !== 'string') return false;
  try {
    return isDeepStrictEqual(JSON.parse(result.data), JSON.parse(request.inputs[0]?.data ?? 'null'));
  } catch {
    return false;
  }
}

/**
 * The JSON-RPC call of `echo.echo` over the WebSocket face; its result is the params unchanged
 * (the load generator's default check).
 * @param {number} i the request index
 */
export function wsEchoRequest(i) {
  return { method: 'echo.echo', params: payload(i) };
}

/**
 * A2A v1.0 `SendMessage` params for `echo.echo` on the node's A2A face: a data part naming the
 * verb with the payload as input (docs/decisions/a2a.md A2A-6). A fresh messageId each time:
 * a repeated one answers the earlier task (A2A-9) without running.
 * @param {number} i the request index
 */
export function a2aEchoRequest(i) {
  return a2aSendMessage(randomUUID(), { $case: 'data', value: { verb: 'echo.echo', input: payload(i) } });
}

/**
 * The answer to {@link a2aEchoRequest}: a COMPLETED task (state 3) whose first artifact holds
 * the payload.
 * @param {any} req @param {any} result @param {number} i
 */
export function a2aEchoCheck(req, result, i) {
  const content = result?.artifacts?.[0]?.parts?.[0]?.content;
  return (
    result?.status?.state === 3 && content?.$case === 'data' && isDeepStrictEqual(content.value, payload(i))
  );
}
