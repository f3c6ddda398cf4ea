/**
 * Declaring a prompt with the SDK (issue 13 item 5, seed 004 Req 6.4–6.5):
 * `prompt(name, { description, arguments }, template)`. A string template has `{{name}}`
 * placeholders (spaces inside the braces allowed: `{{ name }}`); each is replaced by the
 * argument's value, an absent optional argument by the empty string; `{{{{` is not special.
 * A template may also be a function of the arguments and the caller. A missing required
 * argument is refused (`INVALID_PARAMS` naming it) before the template runs.
 */
import { PlexusError } from '../core/errors.js';
import type { AgentPrompt, AgentPromptArgument, OfferingCaller } from '../runtime/agents/agent-offerings.js';

/** What a prompt declares. */
export interface PromptOptions {
  readonly description?: string;
  /** Its arguments, each optionally `required` and with a `complete` for completions. */
  readonly arguments?: readonly AgentPromptArgument[];
}

/** A prompt template: text with `{{name}}` placeholders, or a function giving the text. */
export type PromptTemplate =
  string | ((args: Readonly<Record<string, string>>, caller: OfferingCaller) => string | Promise<string>);

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}/g;

/** `template` with each `{{name}}` replaced by `args[name]` (absent: empty). */
export function substitute(template: string, args: Readonly<Record<string, string>>): string {
  return template.replace(PLACEHOLDER, (_whole, name: string) =>
    Object.hasOwn(args, name) ? (args[name] ?? '') : '',
  );
}

/**
 * Declares a prompt.
 *
 * @throws PlexusError `INVALID_PARAMS` for an empty name, a template that is neither a string
 *   nor a function, or two arguments with one name.
 * @example
 * const review = prompt('review', {
 *   description: 'Review a file',
 *   arguments: [{ name: 'file', required: true }],
 * }, 'Please review {{file}}.');
 */
export function prompt(name: string, options: PromptOptions, template: PromptTemplate): AgentPrompt {
  if (typeof name !== 'string' || name === '') {
    throw new PlexusError('INVALID_PARAMS', 'a prompt needs a non-empty name');
  }
  if (typeof template !== 'string' && typeof template !== 'function') {
    throw new PlexusError('INVALID_PARAMS', `prompt ${name} needs a template string or function`);
  }
  const args = [...(options.arguments ?? [])];
  const seen = new Set<string>();
  for (const arg of args) {
    if (seen.has(arg.name)) {
      throw new PlexusError('INVALID_PARAMS', `prompt ${name} declares argument ${arg.name} twice`);
    }
    seen.add(arg.name);
  }
  return {
    name,
    ...(options.description === undefined ? {} : { description: options.description }),
    arguments: args,
    render: (given, caller) => {
      for (const arg of args) {
        if (arg.required === true && (!Object.hasOwn(given, arg.name) || given[arg.name] === undefined)) {
          throw new PlexusError(
            'INVALID_PARAMS',
            `prompt ${name} needs argument ${JSON.stringify(arg.name)}`,
            {
              details: { argument: arg.name },
            },
          );
        }
      }
      return typeof template === 'string' ? substitute(template, given) : template(given, caller);
    },
  };
}
