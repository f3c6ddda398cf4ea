/**
 * The Nova26 A2A face (seed 004, DESIGN D11): the envelope with its ten message types and
 * `schemaVersion`, the codec to and from the core Envelope, envelope creation, and the MCP
 * tool invocation record.
 */
export {
  NOVA_METADATA_EXTENSION,
  NOVA_TO_EXTENSION,
  createNovaCodec,
  decodeNova,
  deserializeNova,
  encodeNova,
  novaCodec,
  serializeNova,
} from './codec.js';
export type { NovaCodecInit } from './codec.js';
export { createNovaEnvelope } from './create.js';
export type { NovaEnvelopeComponents, NovaEnvelopeInit } from './create.js';
export {
  NOVA_BROADCAST,
  NOVA_BROADCAST_ALIAS,
  NOVA_ENVELOPE_SCHEMA,
  NOVA_MESSAGE_TYPES,
  NOVA_METADATA_CORE_KEYS,
  NOVA_SCHEMA_VERSION,
  NOVA_SUPPORTED_SCHEMA_VERSIONS,
} from './envelope.js';
export type { NovaEnvelope, NovaMessageType, NovaMetadata } from './envelope.js';
export {
  MCP_TOOL_INVOCATION_SCHEMA,
  MCP_TOOL_INVOCATION_SUPPORTED_VERSIONS,
  MCP_TOOL_INVOCATION_VERSION,
  deserializeMcpToolInvocation,
  parseMcpToolInvocation,
  serializeMcpToolInvocation,
  validateMcpToolInvocation,
} from './mcp-tool-invocation.js';
export type { McpToolInvocation } from './mcp-tool-invocation.js';
export { NOVA_RESERVED_EXTENSION_PREFIX, novaVersionProblem, validateNova } from './validate.js';
