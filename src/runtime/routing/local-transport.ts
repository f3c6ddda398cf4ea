/**
 * The local transport: `local://<agent>` targets, run on an agent of this node through the
 * runtime's own pipeline (face `internal`) — used when a fallback step or group names a local
 * agent (`local-llm: [local://ollama]`). Without an agent id, the first local agent (by id)
 * offering the verb runs it.
 */
import type { Envelope } from '../../core/envelope.js';
import { PlexusError } from '../../core/errors.js';
import type { Runtime } from '../runtime-interface.js';
import type { RouteTransport } from './transport.js';

/** Creates the local transport over a runtime (looked up at call time). */
export function localTransport(runtime: () => Pick<Runtime, 'invoke' | 'agents'>): RouteTransport {
  return {
    name: 'local',
    supports: (target) => target.scheme === 'local',
    async invoke({ target, envelope }, signal): Promise<Envelope> {
      const { registry } = runtime().agents;
      let agent = target.scheme === 'local' ? target.agent : undefined;
      if (agent === undefined) {
        agent = registry
          .byCapability(envelope.verb)
          .filter((card) => card.origin !== 'remote')
          .map((card) => card.id)
          .sort()[0];
      }
      const card = agent === undefined ? undefined : registry.find(agent)?.card;
      if (agent === undefined || card === undefined || card.origin === 'remote') {
        throw new PlexusError(
          'UNAVAILABLE',
          `${target.text}: no agent of this node ${agent === undefined ? `offers ${envelope.verb}` : `has the id ${agent}`}`,
          { retryable: false, details: { target: target.text } },
        );
      }
      const { envelope: answer } = await runtime().invoke(
        { ...envelope, to: agent },
        { face: 'internal', idempotencyKey: `local-route:${envelope.id}:${agent}` },
        { signal },
      );
      return answer;
    },
  };
}
