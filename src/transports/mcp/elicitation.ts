/**
 * A job's question as an MCP `elicitation/create` (docs/decisions/mcp.md MCP-50): a handler's
 * `ctx.requestInput(prompt, {schema})` (RT-055) is asked of the MCP client that called the
 * tool, when it declared the `elicitation` capability and the schema is one a form can ask.
 * The message is the prompt. A flat object schema of strings, numbers, booleans and enums
 * (MCP's restricted form schema) is sent as it is and the accepted content is the answer; a
 * single primitive schema — or none — is asked as one field `answer` (a string without a
 * schema) and the answer is that field's value.
 */
import {
  ElicitRequestFormParamsSchema,
  PrimitiveSchemaDefinitionSchema,
  type ElicitRequestFormParams,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.js';
import type { JobInputRequest } from '../../core/records/job.js';

/** The field a question with a single-value (or no) schema is asked as. */
export const ELICITATION_ANSWER_FIELD = 'answer';

/** How long the face waits for the client to answer one elicitation, ms (10 min). */
export const MCP_ELICITATION_TIMEOUT_MS = 10 * 60_000;

/** An elicitation that asks a job's question, and how its content becomes the answer. */
export interface JobElicitation {
  readonly params: ElicitRequestFormParams;
  /** True when the answer is the `answer` field of the content, not the content. */
  readonly unwrap: boolean;
}

function withoutDialect(schema: JsonObject): JsonObject {
  if (!('$schema' in schema)) return schema;
  return Object.fromEntries(Object.entries(schema).filter(([k]) => k !== '$schema'));
}

const REQUESTED_SCHEMA = ElicitRequestFormParamsSchema.shape.requestedSchema;

/** The elicitation of `request`, or `undefined` when its schema is not one a form can ask. */
export function elicitationOf(request: JobInputRequest): JobElicitation | undefined {
  const { prompt, schema } = request;
  if (schema === undefined) {
    return {
      params: {
        message: prompt,
        requestedSchema: {
          type: 'object',
          properties: { [ELICITATION_ANSWER_FIELD]: { type: 'string', title: 'Answer' } },
          required: [ELICITATION_ANSWER_FIELD],
        },
      },
      unwrap: true,
    };
  }
  if (!isJsonObject(schema)) return undefined;
  const plain = withoutDialect(schema);
  if (plain['type'] === 'object') {
    if (!REQUESTED_SCHEMA.safeParse(plain).success) return undefined;
    // sent as declared (the parse above would drop keywords it does not know)
    const requestedSchema = plain as unknown as ElicitRequestFormParams['requestedSchema'];
    return { params: { message: prompt, requestedSchema }, unwrap: false };
  }
  if (!PrimitiveSchemaDefinitionSchema.safeParse(plain).success) return undefined;
  const field = plain as unknown as ElicitRequestFormParams['requestedSchema']['properties'][string];
  return {
    params: {
      message: prompt,
      requestedSchema: {
        type: 'object',
        properties: { [ELICITATION_ANSWER_FIELD]: field },
        required: [ELICITATION_ANSWER_FIELD],
      },
    },
    unwrap: true,
  };
}

/** The job's answer from an accepted elicitation's content. */
export function answerOf(elicitation: JobElicitation, result: ElicitResult): JsonValue {
  const content = (result.content ?? {}) as JsonObject;
  return elicitation.unwrap ? (content[ELICITATION_ANSWER_FIELD] ?? null) : content;
}
