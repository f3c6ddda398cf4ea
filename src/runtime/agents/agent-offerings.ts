/**
 * What an agent offers besides verbs (issue 13 items 4–6, seed 004 Req 6): resources read by
 * URI or URI template, and prompt templates. The runtime only keeps them beside the agent's
 * definition (`runtime.agents.offerings()`); faces (MCP) serve them. Loaders and renderers run
 * with the caller's principal, so an agent can answer per tenant.
 */
import type { JsonObject, JsonValue } from '../../core/json.js';
import type { Principal } from '../context.js';

/** Who reads a resource or gets a prompt. */
export interface OfferingCaller {
  /** The caller (its `tenantId` is the caller's tenant). */
  readonly principal: Principal;
  /** Aborted when the caller goes away. */
  readonly signal: AbortSignal;
  /**
   * The W3C `traceparent` of the span the read (or render, or completion) runs in, when the
   * face knows one: send it on any call the loader makes to another service (OBS-47).
   */
  readonly traceparent?: string;
  /** The W3C `tracestate` beside `traceparent`, when the caller sent one (OBS-45). */
  readonly tracestate?: string;
}

/**
 * Offers completions of one argument's partial value (at most 100 are sent); `context` holds
 * the values the client already chose for the other arguments (MCP `context.arguments`).
 */
export type ArgumentCompleter = (
  value: string,
  caller: OfferingCaller,
  context?: Readonly<Record<string, string>>,
) => readonly string[] | Promise<readonly string[]>;

/** What a resource loader answers: text, bytes, or a JSON value (sent as JSON text). */
export type ResourceBody = string | Uint8Array | JsonValue;

/** One resource or resource template. */
export interface AgentResource {
  /** A fixed URI (`uri`) or an RFC 6570 level-1 template (`template`, `{name}` segments). */
  readonly uri?: string;
  readonly template?: string;
  readonly name: string;
  readonly mimeType?: string;
  readonly description?: string;
  /** Completers of template variables, by variable name. */
  readonly complete?: Readonly<Record<string, ArgumentCompleter>>;
  /** Reads the resource at `uri` (`params`: the template's variables). */
  load(
    uri: string,
    params: Readonly<Record<string, string>>,
    caller: OfferingCaller,
  ): ResourceBody | Promise<ResourceBody>;
}

/** One declared prompt argument. */
export interface AgentPromptArgument {
  readonly name: string;
  readonly description?: string;
  readonly required?: boolean;
  readonly complete?: ArgumentCompleter;
}

/** One prompt template. */
export interface AgentPrompt {
  readonly name: string;
  readonly description?: string;
  readonly arguments: readonly AgentPromptArgument[];
  /**
   * The prompt for `args` (every required argument present): its text (one user message), or
   * its messages.
   * @throws PlexusError `INVALID_PARAMS` naming a missing required argument.
   */
  render(args: Readonly<Record<string, string>>, caller: OfferingCaller): PromptBody | Promise<PromptBody>;
}

/**
 * One message of a rendered prompt, as MCP's `PromptMessage`: a role and one content block
 * (`{type: 'text', text}`, `{type: 'image', data, mimeType}`, `{type: 'resource', resource}`, …).
 */
export interface PromptMessage {
  readonly role: 'user' | 'assistant';
  readonly content: JsonObject;
}

/** What a prompt renders to: its text (one user message) or its messages. */
export type PromptBody = string | readonly PromptMessage[];

/** An agent's resources and prompts. */
export interface AgentOfferings {
  readonly agentId: string;
  readonly resources: readonly AgentResource[];
  readonly prompts: readonly AgentPrompt[];
}
