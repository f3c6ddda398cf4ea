import { PlexusError } from '../../../src/core/errors.js';
import { localTransport, parseTarget } from '../../../src/runtime/routing/index.js';
import { agent, request, startRuntime } from '../helpers.js';
import { runRouteTransportContract } from './transport-contract.js';

runRouteTransportContract('local', async () => {
  const h = await startRuntime({
    agents: [
      agent('helper', {
        'demo.work': (input) => ({ done: input }),
        'demo.fail': () => {
          throw new PlexusError('PRECONDITION_FAILED', 'no');
        },
      }),
    ],
  });
  return {
    transport: localTransport(() => h.runtime),
    reachable: parseTarget('local://helper'),
    foreign: parseTarget('http://127.0.0.1:3100'),
    ok: () => request('demo.work', 7),
    expected: { done: 7 },
    failing: () => request('demo.fail', null),
    close: () => h.close(),
  };
});
