/** What `query` returns about one verb: who offers it, its schemas, and its spec when registered. */
import type { AgentCard, AgentOrigin } from '../core/records/agent-card.js';
import type { VerbSpec } from '../core/records/verb-spec.js';
import type { JsonSchema } from '../core/schema-validator.js';
import { stripVerbVersion } from '../core/verb-name.js';

/** One verb offered by one agent. */
export interface VerbInfo {
  /** The verb name, without `@version`. */
  readonly verb: string;
  /** The id of the agent offering it. */
  readonly agent: string;
  readonly origin: AgentOrigin;
  readonly description?: string;
  /** The input schema (the spec's when registered with one, else the card's). */
  readonly input: JsonSchema;
  readonly output: JsonSchema;
  /** The verb spec (effects, scopes, category), when the agent registered one. */
  readonly spec?: VerbSpec;
}

/** Every verb of `cards`, sorted by verb then agent. */
export function verbInfosOf(
  cards: readonly AgentCard[],
  specOf: (agentId: string, verb: string) => VerbSpec | undefined,
): VerbInfo[] {
  const infos = cards.flatMap((card) =>
    card.capabilities.map((cap): VerbInfo => {
      const verb = stripVerbVersion(cap.verb);
      const spec = specOf(card.id, verb);
      const description = spec?.description ?? cap.description;
      return {
        verb,
        agent: card.id,
        origin: card.origin ?? 'local',
        ...(description === undefined ? {} : { description }),
        input: spec?.input ?? cap.input,
        output: spec?.output ?? cap.output,
        ...(spec === undefined ? {} : { spec }),
      };
    }),
  );
  return infos.sort((a, b) =>
    a.verb === b.verb ? (a.agent < b.agent ? -1 : a.agent > b.agent ? 1 : 0) : a.verb < b.verb ? -1 : 1,
  );
}
