/**
 * Which verb an A2A message asks for, and with what input (issue 14 item 3,
 * docs/decisions/a2a.md A2A-6). In order:
 *
 * 1. a data part `{"verb": "<skill id or verb>", "input": …}` names the verb, its `input` the input
 *    (absent: `{}`);
 * 2. else the message metadata's `skill` (or `skillId`) names it, and the input comes from the
 *    parts: one data part is the input; text parts (joined by a newline) fill the verb's one text
 *    field (an input schema `{"type": "string"}`, or an object with exactly one property, a string);
 * 3. else a message of text parts goes to the one verb of the endpoint whose input is one text
 *    field, when there is exactly one.
 *
 * A name is a skill id (`<agent id>/<verb>`) or a verb name; a verb name offered by one agent of
 * the endpoint goes to it, one offered by several goes to the router (`capability:<verb>`). A
 * name (rules 1 and 2) that no agent of the endpoint offers is looked up the same way among the
 * remote agents the endpoint can reach (MESH-33), so a node on the mesh forwards it; the text
 * rule (3) stays with the endpoint's own agents.
 * Anything else is `INVALID_PARAMS` saying how to name a skill.
 */
import type { Message, Part } from '@a2a-js/sdk';
import { PlexusError } from '../../core/errors.js';
import { isJsonObject, type JsonValue } from '../../core/json.js';
import type { AgentCapability, AgentCard } from '../../core/records/agent-card.js';
import { capabilitySelector, stripVerbVersion } from '../../core/verb-name.js';

/** Where a message goes: the envelope's `to`, its verb and its input. */
export interface MessageCall {
  readonly to: string;
  readonly verb: string;
  readonly input: JsonValue;
}

/** The name of the one text field of `capability`'s input, `''` for a string input, else `undefined`. */
export function textFieldOf(capability: AgentCapability): string | undefined {
  const schema = capability.input as unknown;
  if (!isJsonObject(schema)) return undefined;
  const s = schema as { type?: unknown; properties?: unknown };
  if (s.type === 'string') return '';
  if (s.type !== 'object' || !isJsonObject(s.properties)) return undefined;
  const entries = Object.entries(s.properties as Record<string, unknown>);
  const [entry] = entries;
  if (entry === undefined || entries.length !== 1) return undefined;
  const [name, property] = entry;
  return isJsonObject(property) && (property as { type?: unknown }).type === 'string' ? name : undefined;
}

function partText(part: Part): string | undefined {
  return part.content?.$case === 'text' ? part.content.value : undefined;
}

function partData(part: Part): JsonValue | undefined {
  return part.content?.$case === 'data' ? (part.content.value as JsonValue) : undefined;
}

function offers(card: AgentCard, verb: string): AgentCapability | undefined {
  return (
    card.capabilities.find((c) => c.verb === verb) ??
    card.capabilities.find((c) => stripVerbVersion(c.verb) === verb)
  );
}

interface Named {
  readonly to: string;
  readonly verb: string;
  /** The capability when one agent offers it (for the text rule). */
  readonly capability?: AgentCapability;
}

function skillList(cards: readonly AgentCard[]): string {
  const ids = cards.flatMap((card) => card.capabilities.map((c) => `${card.id}/${c.verb}`));
  const shown = ids.slice(0, 10).join(', ');
  return ids.length > 10 ? `${shown}, … (${ids.length} in all; see the agent card)` : shown || 'none';
}

function unknownSkill(name: string, cards: readonly AgentCard[]): PlexusError {
  return new PlexusError(
    'INVALID_PARAMS',
    `no skill ${JSON.stringify(name)} at this endpoint; skills: ${skillList(cards)}`,
    { details: { parameter: 'skill', skill: name } },
  );
}

/**
 * Names already resolved among a list of cards, per list (A2A-29): the endpoints hand out the
 * same array while no card changed, so a message naming a known skill skips the scan of every
 * card. Only names some card offers are kept, so a list's entries are bounded by its verbs.
 */
const resolved = new WeakMap<readonly AgentCard[], Map<string, Named>>();

function resolveKnown(name: string, cards: readonly AgentCard[]): Named {
  let names = resolved.get(cards);
  const known = names?.get(name);
  if (known !== undefined) return known;
  const named = resolveAmong(name, cards);
  if (names === undefined) {
    names = new Map();
    resolved.set(cards, names);
  }
  names.set(name, named);
  return named;
}

function resolveName(name: string, cards: readonly AgentCard[], reachable: readonly AgentCard[] = []): Named {
  try {
    return resolveKnown(name, cards);
  } catch (error) {
    if (reachable.length === 0) throw error;
    try {
      return resolveAmong(name, reachable);
    } catch {
      throw error; // the endpoint's own skills are the ones worth listing
    }
  }
}

function resolveAmong(name: string, cards: readonly AgentCard[]): Named {
  const slash = name.indexOf('/');
  if (slash > 0) {
    const card = cards.find((c) => c.id === name.slice(0, slash));
    const capability = card === undefined ? undefined : offers(card, name.slice(slash + 1));
    if (card === undefined || capability === undefined) throw unknownSkill(name, cards);
    return { to: card.id, verb: capability.verb, capability };
  }
  const offering = cards.flatMap((card) => {
    const capability = offers(card, name);
    return capability === undefined ? [] : [{ card, capability }];
  });
  const [first] = offering;
  if (first === undefined) throw unknownSkill(name, cards);
  if (offering.length === 1)
    return { to: first.card.id, verb: first.capability.verb, capability: first.capability };
  return { to: capabilitySelector(name), verb: name };
}

function textInput(named: Named, texts: readonly string[]): JsonValue {
  const field = named.capability === undefined ? undefined : textFieldOf(named.capability);
  if (field === undefined) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `skill ${named.verb} takes structured input: send it as a data part {"verb": "${named.verb}", "input": {…}}`,
      { details: { parameter: 'parts', verb: named.verb } },
    );
  }
  const text = texts.join('\n');
  return field === '' ? text : { [field]: text };
}

/** The skill a message's metadata names, if any. */
function metadataSkill(message: Message): string | undefined {
  const metadata = message.metadata as Record<string, unknown> | undefined;
  const skill = metadata?.['skill'] ?? metadata?.['skillId'];
  return typeof skill === 'string' && skill !== '' ? skill : undefined;
}

/**
 * The call `message` asks for among the verbs of `cards` (the endpoint's agents), and for a name
 * none of them offers, among `reachable` (remote agents).
 * @throws PlexusError `INVALID_PARAMS` (`details.parameter`) when it names no verb of them.
 */
export function messageCall(
  message: Message,
  cards: readonly AgentCard[],
  reachable: readonly AgentCard[] = [],
): MessageCall {
  const parts = message.parts;
  if (parts.length === 0) {
    throw new PlexusError('INVALID_PARAMS', 'the message has no parts', { details: { parameter: 'parts' } });
  }
  for (const part of parts) {
    const data = partData(part);
    if (isJsonObject(data ?? null) && typeof (data as Record<string, unknown>)['verb'] === 'string') {
      const d = data as Record<string, JsonValue>;
      const named = resolveName(d['verb'] as string, cards, reachable);
      return { to: named.to, verb: named.verb, input: d['input'] ?? {} };
    }
  }
  const texts = parts.flatMap((p) => {
    const text = partText(p);
    return text === undefined ? [] : [text];
  });
  const datas = parts.flatMap((p) => {
    const data = partData(p);
    return data === undefined ? [] : [data];
  });
  const skill = metadataSkill(message);
  if (skill !== undefined) {
    const named = resolveName(skill, cards, reachable);
    const [data] = datas;
    if (data !== undefined && datas.length === 1 && texts.length === 0)
      return { to: named.to, verb: named.verb, input: data };
    if (texts.length === parts.length)
      return { to: named.to, verb: named.verb, input: textInput(named, texts) };
    throw new PlexusError(
      'INVALID_PARAMS',
      'with a skill in the metadata, send either one data part (the input) or text parts (the text field)',
      { details: { parameter: 'parts' } },
    );
  }
  if (texts.length === parts.length) {
    const takers = cards.flatMap((card) =>
      card.capabilities.flatMap((capability) =>
        textFieldOf(capability) === undefined ? [] : [{ to: card.id, verb: capability.verb, capability }],
      ),
    );
    const [only] = takers;
    if (only !== undefined && takers.length === 1) return { ...only, input: textInput(only, texts) };
  }
  throw new PlexusError(
    'INVALID_PARAMS',
    `the message names no skill: add a data part {"verb": "<skill>", "input": {…}} or metadata {"skill": "<skill>"}; skills: ${skillList(cards)}`,
    { details: { parameter: 'message' } },
  );
}

/**
 * The answer a message gives to a task waiting for input (A2A-14): its one data part's value;
 * else its text parts joined by new lines.
 * @throws PlexusError `INVALID_PARAMS` for a message with neither, or with several data parts.
 */
export function answerOf(message: Message): JsonValue {
  const data = message.parts.filter((p) => p.content?.$case === 'data');
  if (data.length > 1) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `an answer to task ${message.taskId} carries one data part (or text), not ${data.length}`,
    );
  }
  const [only] = data;
  if (only !== undefined) return partData(only) ?? null;
  const texts = message.parts.flatMap((p) => partText(p) ?? []);
  if (texts.length === 0) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `an answer to task ${message.taskId} needs a text or data part with the input the task asked for`,
    );
  }
  return texts.join('\n');
}
