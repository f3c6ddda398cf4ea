/**
 * Which form of an ESRP request's input a verb receives (docs/decisions/primitive-names.md).
 * The ESRP face decodes a request to `{inputs, params}`. A verb whose input schema takes that
 * (the demo and SDK agents, a remote agent that declares no schema) gets it as it is and reads
 * it itself; every other verb (the Hyperspace primitives, an agent with a plain object schema)
 * gets the plain input the request carries (`plainInput`: the JSON input named `input`, the
 * other inputs as fields, the fields of `params`) — so a verb sees the same input whichever
 * face the call came through.
 */
import { findCapability, type AgentCapability } from '../../core/records/agent-card.js';
import type { JsonValue } from '../../core/json.js';
import { schemaValidator } from '../../core/schema-validator.js';
import { parseCapabilitySelector } from '../../core/verb-name.js';
import type { Registry } from '../../runtime/agents/registry.js';
import { checkJsonInputs, plainInput } from '../../wire/esrp/plain-input.js';

/** The capabilities that could answer `verb` sent to `to` (an agent id or a capability selector). */
function candidatesOf(registry: Registry, to: string, verb: string): AgentCapability[] {
  const selected = parseCapabilitySelector(to);
  const cards = selected === undefined ? [registry.find(to)?.card] : registry.byCapability(verb);
  return cards.flatMap((card) => {
    const capability = card === undefined ? undefined : findCapability(card, verb);
    return capability === undefined ? [] : [capability];
  });
}

/**
 * The data the ESRP face gives the runtime for a request to `verb` at `to`: `data` (the
 * request's `{inputs, params}`) when no agent is known for it or one of them accepts it as its
 * input, else the plain input of `data`.
 *
 * @throws PlexusError `INVALID_PARAMS` (`details.pointer` `/inputs`) when an
 *   `application/json` input is too deep or unrecordable (for every verb), or is not JSON, or the input named `input` is not an object while
 *   other inputs or params are given.
 */
export function esrpInputFor(registry: Registry, to: string, verb: string, data: JsonValue): JsonValue {
  checkJsonInputs(data); // too deep or unrecordable JSON inputs are refused before any job
  const candidates = candidatesOf(registry, to, verb);
  if (candidates.length === 0) return data;
  const validator = schemaValidator();
  const takesEsrpData = candidates.some((c) => {
    try {
      return validator.validate(c.input, data).length === 0;
    } catch {
      return true; // a schema that does not compile: the runtime's input check reports it
    }
  });
  return takesEsrpData ? data : plainInput(data);
}
