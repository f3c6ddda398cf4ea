/**
 * The test dispatcher the JSON-RPC 2.0 spec's §7 examples assume: subtract (positional and
 * named), sum, get_data, notify_hello, notify_sum, update; everything else is unknown.
 */
import { PlexusError } from '../../../src/core/errors.js';
import type { JsonValue } from '../../../src/core/json.js';
import type { JsonRpcParams } from '../../../src/wire/jsonrpc/index.js';

function numbers(params: JsonRpcParams | undefined): number[] {
  if (!Array.isArray(params) || !params.every((p): p is number => typeof p === 'number')) {
    throw new PlexusError('INVALID_PARAMS', 'expected an array of numbers');
  }
  return params;
}

/** Calls seen, in order, so tests can check that notifications did run. */
export const calls: string[] = [];

/** The §7 dispatcher. */
export function specDispatch(method: string, params: JsonRpcParams | undefined): Promise<JsonValue> {
  calls.push(method);
  switch (method) {
    case 'subtract': {
      if (Array.isArray(params)) {
        const [minuend, subtrahend] = numbers(params);
        if (minuend === undefined || subtrahend === undefined) {
          throw new PlexusError('INVALID_PARAMS', 'subtract takes two numbers');
        }
        return Promise.resolve(minuend - subtrahend);
      }
      const minuend = params?.minuend;
      const subtrahend = params?.subtrahend;
      if (typeof minuend !== 'number' || typeof subtrahend !== 'number') {
        throw new PlexusError('INVALID_PARAMS', 'subtract needs numbers minuend and subtrahend');
      }
      return Promise.resolve(minuend - subtrahend);
    }
    case 'sum':
    case 'notify_sum':
      return Promise.resolve(numbers(params).reduce((a, b) => a + b, 0));
    case 'get_data':
      return Promise.resolve(['hello', 5]);
    case 'notify_hello':
    case 'update':
      return Promise.resolve(null);
    default:
      return Promise.reject(new PlexusError('UNKNOWN_VERB', `no method "${method}"`));
  }
}
