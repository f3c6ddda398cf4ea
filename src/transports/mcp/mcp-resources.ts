/**
 * MCP resources (issue 13 item 4, seed 004 Req 6.1–6.3, docs/decisions/mcp.md MCP-10): the
 * built-in `plexus://agents/{id}` (every agent card, JSON) and `plexus://jobs/{id}` (a job of
 * the caller's tenant, JSON of its record), then the resources agents declared with the SDK's
 * `resource()`. Reading runs the agent's loader with the caller's principal. An unknown URI,
 * and another tenant's job, is the MCP resource-not-found error (−32002) naming the URI.
 */
import {
  ErrorCode,
  McpError,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplate,
} from '@modelcontextprotocol/sdk/types.js';
import { PlexusError, toPlexusError } from '../../core/errors.js';
import { matchTemplate } from '../../core/uri-template.js';
import { compareIds } from '../../runtime/agents/registry.js';
import type { AgentResource, OfferingCaller, ResourceBody } from '../../runtime/agents/agent-offerings.js';
import type { Runtime } from '../../runtime/index.js';
import { visibleToTenant } from '../../runtime/pipeline/tenancy.js';
import { mcpErrorCode } from './mcp-errors.js';

/** The MCP error code of an unknown resource (spec: "Resource not found"). */
export const RESOURCE_NOT_FOUND = -32002;

export const AGENT_URI_PREFIX = 'plexus://agents/';
export const JOB_URI_PREFIX = 'plexus://jobs/';

/** The resource-not-found error of `uri`. */
export function resourceNotFound(uri: string): McpError {
  return new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, { uri });
}

/** The protocol error of a failure inside a loader or renderer. */
export function protocolError(error: unknown): McpError {
  if (error instanceof McpError) return error;
  const plexus = toPlexusError(error);
  return new McpError(mcpErrorCode(plexus.code), plexus.message, { code: plexus.code });
}

/** The URI of an agent card. */
export function agentUri(id: string): string {
  return AGENT_URI_PREFIX + encodeURIComponent(id);
}

/** The job id of a `plexus://jobs/{id}` URI, if it is one. */
export function jobIdOfUri(uri: string): string | undefined {
  if (!uri.startsWith(JOB_URI_PREFIX)) return undefined;
  const rest = uri.slice(JOB_URI_PREFIX.length);
  if (rest === '' || rest.includes('/')) return undefined;
  try {
    return decodeURIComponent(rest);
  } catch {
    return undefined;
  }
}

function agentIdOfUri(uri: string): string | undefined {
  if (!uri.startsWith(AGENT_URI_PREFIX)) return undefined;
  const rest = uri.slice(AGENT_URI_PREFIX.length);
  if (rest === '' || rest.includes('/')) return undefined;
  try {
    return decodeURIComponent(rest);
  } catch {
    return undefined;
  }
}

/** Every listed resource: agent cards by id, then fixed resources of agents by agent id. */
export function listedResources(runtime: Runtime): Resource[] {
  const cards = [...runtime.agents.registry.list()].sort((a, b) => compareIds(a.id, b.id));
  const out: Resource[] = cards.map((card) => ({
    uri: agentUri(card.id),
    name: `agent ${card.id}`,
    title: `${card.name} (agent card)`,
    mimeType: 'application/json',
    ...(card.description === undefined ? {} : { description: card.description }),
  }));
  for (const offering of sortedOfferings(runtime)) {
    for (const r of offering.resources) {
      if (r.uri === undefined) continue;
      out.push({
        uri: r.uri,
        name: r.name,
        ...(r.mimeType === undefined ? {} : { mimeType: r.mimeType }),
        ...(r.description === undefined ? {} : { description: r.description }),
        _meta: { 'plexus/agent': offering.agentId },
      });
    }
  }
  return out;
}

/** Every resource template: the built-in two, then the agents'. */
export function listedTemplates(runtime: Runtime): ResourceTemplate[] {
  const out: ResourceTemplate[] = [
    {
      uriTemplate: `${AGENT_URI_PREFIX}{id}`,
      name: 'agent card',
      mimeType: 'application/json',
      description: 'The card of an agent this node knows',
    },
    {
      uriTemplate: `${JOB_URI_PREFIX}{id}`,
      name: 'job',
      mimeType: 'application/json',
      description: "A job of the caller's tenant; subscribe to follow it",
    },
  ];
  for (const offering of sortedOfferings(runtime)) {
    for (const r of offering.resources) {
      if (r.template === undefined) continue;
      out.push({
        uriTemplate: r.template,
        name: r.name,
        ...(r.mimeType === undefined ? {} : { mimeType: r.mimeType }),
        ...(r.description === undefined ? {} : { description: r.description }),
        _meta: { 'plexus/agent': offering.agentId },
      });
    }
  }
  return out;
}

function sortedOfferings(runtime: Runtime): ReturnType<Runtime['agents']['offerings']> {
  return [...runtime.agents.offerings()].sort((a, b) => compareIds(a.agentId, b.agentId));
}

/** The agent resource serving `uri` and the template's variables, if any. */
export function agentResourceOf(
  runtime: Runtime,
  uri: string,
): { resource: AgentResource; params: Record<string, string> } | undefined {
  const offerings = sortedOfferings(runtime);
  for (const o of offerings)
    for (const r of o.resources) if (r.uri === uri) return { resource: r, params: {} };
  for (const o of offerings)
    for (const r of o.resources) {
      if (r.template === undefined) continue;
      const params = matchTemplate(r.template, uri);
      if (params !== undefined) return { resource: r, params };
    }
  return undefined;
}

/** The agent resource template declared with `uriTemplate`, if any. */
export function agentTemplateOf(runtime: Runtime, uriTemplate: string): AgentResource | undefined {
  for (const o of runtime.agents.offerings())
    for (const r of o.resources) if (r.template === uriTemplate) return r;
  return undefined;
}

function contents(uri: string, body: ResourceBody, mimeType: string | undefined): ReadResourceResult {
  if (typeof body === 'string')
    return { contents: [{ uri, mimeType: mimeType ?? 'text/plain', text: body }] };
  if (body instanceof Uint8Array) {
    return {
      contents: [
        { uri, mimeType: mimeType ?? 'application/octet-stream', blob: Buffer.from(body).toString('base64') },
      ],
    };
  }
  return { contents: [{ uri, mimeType: mimeType ?? 'application/json', text: JSON.stringify(body) }] };
}

/**
 * Checks that `uri` names a resource `caller` may read (without loading an agent resource).
 * @throws McpError −32002 naming the URI.
 */
export async function checkResource(runtime: Runtime, uri: string, caller: OfferingCaller): Promise<void> {
  const agentId = agentIdOfUri(uri);
  if (agentId !== undefined) {
    if (runtime.agents.registry.find(agentId) === undefined) throw resourceNotFound(uri);
    return;
  }
  const jobId = jobIdOfUri(uri);
  if (jobId !== undefined) {
    await visibleJob(runtime, uri, jobId, caller);
    return;
  }
  if (agentResourceOf(runtime, uri) === undefined) throw resourceNotFound(uri);
}

async function visibleJob(runtime: Runtime, uri: string, id: string, caller: OfferingCaller) {
  try {
    const job = await runtime.jobs.get(id, { signal: caller.signal });
    if (visibleToTenant(job.tenantId, caller.principal)) return job;
  } catch (error) {
    if (!(error instanceof PlexusError && error.code === 'NOT_FOUND')) throw protocolError(error);
  }
  throw resourceNotFound(uri);
}

/**
 * Reads `uri` for `caller`.
 * @throws McpError −32002 for an unknown URI or another tenant's job; a loader's failure as
 *   its protocol error.
 */
export async function readResource(
  runtime: Runtime,
  uri: string,
  caller: OfferingCaller,
): Promise<ReadResourceResult> {
  const agentId = agentIdOfUri(uri);
  if (agentId !== undefined) {
    const entry = runtime.agents.registry.find(agentId);
    if (entry === undefined) throw resourceNotFound(uri);
    return contents(uri, entry.card as unknown as ResourceBody, 'application/json');
  }
  const jobId = jobIdOfUri(uri);
  if (jobId !== undefined) {
    const job = await visibleJob(runtime, uri, jobId, caller);
    return contents(uri, job as unknown as ResourceBody, 'application/json');
  }
  const found = agentResourceOf(runtime, uri);
  if (found === undefined) throw resourceNotFound(uri);
  try {
    const body = await found.resource.load(uri, found.params, caller);
    return contents(uri, body, found.resource.mimeType);
  } catch (error) {
    throw protocolError(error);
  }
}

/** The error of a request whose params are not what the method takes. */
export function invalidParams(message: string): McpError {
  return new McpError(ErrorCode.InvalidParams, message);
}
