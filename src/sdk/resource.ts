/**
 * Declaring a resource with the SDK (issue 13 item 4, seed 004 Req 6.1–6.3):
 * `resource(uri | template, { name, mimeType, description, complete }, loader)`. A URI with a
 * `{name}` segment is a template (RFC 6570 level 1: each variable matches one or more
 * characters other than `/`); the loader gets the URI read, the template's variables and the
 * caller (principal with tenant, signal). Give the resources to `agent(id, verbs, { resources })`;
 * the MCP face lists and reads them.
 */
import { PlexusError } from '../core/errors.js';
import { templateVariables } from '../core/uri-template.js';
import type {
  AgentResource,
  ArgumentCompleter,
  OfferingCaller,
  ResourceBody,
} from '../runtime/agents/agent-offerings.js';

/** What a resource declares. */
export interface ResourceOptions {
  readonly name: string;
  /** @default 'application/json' for a loader answering a non-string, else 'text/plain' */
  readonly mimeType?: string;
  readonly description?: string;
  /** Completers of template variables, by variable name (`completion/complete`). */
  readonly complete?: Readonly<Record<string, ArgumentCompleter>>;
}

/** A resource loader: the URI read, the template's variables, the caller. */
export type ResourceLoader = (
  uri: string,
  params: Readonly<Record<string, string>>,
  caller: OfferingCaller,
) => ResourceBody | Promise<ResourceBody>;

/**
 * Declares a resource (a fixed URI) or a resource template (a URI with `{name}` variables).
 *
 * @throws PlexusError `INVALID_PARAMS` for an empty URI or name, a loader that is not a
 *   function, or a completer for a variable the template does not have.
 * @example
 * const note = resource('notes://{id}', { name: 'note', mimeType: 'text/plain' },
 *   (uri, { id }) => notes.get(id) ?? '');
 */
export function resource(uri: string, options: ResourceOptions, loader: ResourceLoader): AgentResource {
  if (typeof uri !== 'string' || uri === '' || !uri.includes(':')) {
    throw new PlexusError(
      'INVALID_PARAMS',
      `a resource needs an absolute URI (scheme:…), not ${JSON.stringify(uri)}`,
    );
  }
  if (typeof options.name !== 'string' || options.name === '') {
    throw new PlexusError('INVALID_PARAMS', `resource ${uri} needs a name`);
  }
  if (typeof loader !== 'function') {
    throw new PlexusError('INVALID_PARAMS', `resource ${uri} needs a loader function`);
  }
  const variables = templateVariables(uri);
  for (const key of Object.keys(options.complete ?? {})) {
    if (!variables.includes(key)) {
      throw new PlexusError(
        'INVALID_PARAMS',
        `resource ${uri} offers completions for ${key}, which is not one of its variables`,
      );
    }
  }
  return {
    ...(variables.length === 0 ? { uri } : { template: uri }),
    name: options.name,
    ...(options.mimeType === undefined ? {} : { mimeType: options.mimeType }),
    ...(options.description === undefined ? {} : { description: options.description }),
    ...(options.complete === undefined ? {} : { complete: options.complete }),
    load: loader,
  };
}
