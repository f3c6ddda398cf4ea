/**
 * MCP prompts and completions (issue 13 items 5 and 6, seed 004 Req 6.4–6.5,
 * docs/decisions/mcp.md MCP-11, MCP-13): the prompts agents declared with the SDK's `prompt()`,
 * listed by agent id then name; `prompts/get` renders one with the caller's arguments (a missing
 * required argument is −32602 naming it); `completion/complete` asks a prompt argument's or a
 * resource template variable's completer.
 */
import {
  ErrorCode,
  McpError,
  PromptMessageSchema,
  type PromptMessage,
  type CompleteResult,
  type GetPromptResult,
  type Prompt,
} from '@modelcontextprotocol/sdk/types.js';
import type {
  AgentPrompt,
  ArgumentCompleter,
  OfferingCaller,
  PromptBody,
} from '../../runtime/agents/agent-offerings.js';
import { compareIds } from '../../runtime/agents/registry.js';
import type { Runtime } from '../../runtime/index.js';
import { agentTemplateOf, protocolError } from './mcp-resources.js';

/** Most completion values sent (the spec's limit). */
export const MAX_COMPLETIONS = 100;

/** Every prompt with its agent, by agent id then name; the first of a name wins. */
function prompts(runtime: Runtime): { agentId: string; prompt: AgentPrompt }[] {
  const out: { agentId: string; prompt: AgentPrompt }[] = [];
  const seen = new Set<string>();
  const offerings = [...runtime.agents.offerings()].sort((a, b) => compareIds(a.agentId, b.agentId));
  for (const o of offerings)
    for (const p of o.prompts) {
      if (seen.has(p.name)) continue;
      seen.add(p.name);
      out.push({ agentId: o.agentId, prompt: p });
    }
  return out;
}

/** The prompts of `prompts/list`. */
export function listedPrompts(runtime: Runtime): Prompt[] {
  return prompts(runtime).map(({ agentId, prompt }) => ({
    name: prompt.name,
    ...(prompt.description === undefined ? {} : { description: prompt.description }),
    arguments: prompt.arguments.map((a) => ({
      name: a.name,
      ...(a.description === undefined ? {} : { description: a.description }),
      ...(a.required === undefined ? {} : { required: a.required }),
    })),
    _meta: { 'plexus/agent': agentId },
  }));
}

function promptNamed(runtime: Runtime, name: string): AgentPrompt {
  const found = prompts(runtime).find((p) => p.prompt.name === name);
  if (found === undefined)
    throw new McpError(ErrorCode.InvalidParams, `no prompt named ${JSON.stringify(name)}`);
  return found.prompt;
}

/**
 * `prompts/get`: the rendered prompt as one user message.
 * @throws McpError −32602 for an unknown prompt or a missing required argument (naming it).
 */
export async function getPrompt(
  runtime: Runtime,
  name: string,
  args: Readonly<Record<string, string>>,
  caller: OfferingCaller,
): Promise<GetPromptResult> {
  const prompt = promptNamed(runtime, name);
  for (const arg of prompt.arguments) {
    if (arg.required === true && args[arg.name] === undefined) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `prompt ${name} needs argument ${JSON.stringify(arg.name)}`,
        {
          argument: arg.name,
        },
      );
    }
  }
  let body: PromptBody;
  try {
    body = await prompt.render(args, caller);
  } catch (error) {
    throw protocolError(error);
  }
  return {
    ...(prompt.description === undefined ? {} : { description: prompt.description }),
    messages: promptMessages(name, body),
  };
}

/** The MCP messages of a rendered prompt: text is one user message; messages are checked. */
function promptMessages(name: string, body: PromptBody): PromptMessage[] {
  if (typeof body === 'string') return [{ role: 'user', content: { type: 'text', text: body } }];
  const parsed = Array.isArray(body) ? PromptMessageSchema.array().safeParse(body) : undefined;
  if (parsed?.success !== true)
    throw protocolError(new Error(`prompt ${name} did not render to text or MCP prompt messages`));
  return parsed.data;
}

/** What `completion/complete` names. */
export type CompletionRef =
  | { readonly type: 'ref/prompt'; readonly name: string }
  | { readonly type: 'ref/resource'; readonly uri: string };

/**
 * `completion/complete`: the completer's values for the argument's partial value (none when the
 * argument has no completer).
 * @throws McpError −32602 for an unknown prompt or template.
 */
export async function complete(
  runtime: Runtime,
  ref: CompletionRef,
  argument: { name: string; value: string },
  caller: OfferingCaller,
  context: Readonly<Record<string, string>> = {},
): Promise<CompleteResult> {
  let completer: ArgumentCompleter | undefined;
  if (ref.type === 'ref/prompt') {
    completer = promptNamed(runtime, ref.name).arguments.find((a) => a.name === argument.name)?.complete;
  } else {
    const template = agentTemplateOf(runtime, ref.uri);
    if (template === undefined) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `no resource template ${JSON.stringify(ref.uri)} offers completions`,
      );
    }
    completer = template.complete?.[argument.name];
  }
  if (completer === undefined) return { completion: { values: [], total: 0, hasMore: false } };
  let values: readonly string[];
  try {
    values = await completer(argument.value, caller, context);
  } catch (error) {
    throw protocolError(error);
  }
  const strings = Array.isArray(values) ? values.filter((v): v is string => typeof v === 'string') : [];
  return {
    completion: {
      values: strings.slice(0, MAX_COMPLETIONS),
      total: strings.length,
      hasMore: strings.length > MAX_COMPLETIONS,
    },
  };
}
