/**
 * The Nova codec (seed 004 Req. 2, 13; DESIGN D11): a Nova26 A2A envelope ⇄ the core
 * Envelope.
 *
 * | Nova                  | core Envelope                                   |
 * |-----------------------|-------------------------------------------------|
 * | `id`                  | `id`                                            |
 * | `type`                | `kind` (same names; core `hello` has no Nova form) |
 * | `from`, `to`          | `from`, `to` (`*` is read as `broadcast`)       |
 * | `correlationId`       | `correlationId`                                 |
 * | `timestamp`           | `timestamp`                                     |
 * | `payload`             | `data`                                          |
 * | `verb` (optional)     | `verb` (`''` when absent)                       |
 * | `schemaVersion`       | `schemaVersion`                                 |
 * | `metadata.<core key>` | the core field of that name (`tenantId`, `traceparent`, …) |
 * | other `metadata` keys | `extensions._x_nova_metadata`                   |
 * | top-level `_x_*`      | `extensions` (same keys)                        |
 *
 * Decoding then encoding gives back the same wire object. Encoding an envelope fills what
 * Nova requires and the envelope lacks: `timestamp` from the clock, `correlationId` = `id`,
 * `schemaVersion` = {@link NOVA_SCHEMA_VERSION} (also replacing a version Nova does not read).
 */
import type { Envelope, EnvelopeKind, EnvelopeSignature } from '../../core/envelope.js';
import { BROADCAST } from '../../core/envelope.js';
import { PlexusError } from '../../core/errors.js';
import { isJsonObject } from '../../core/json.js';
import type { JsonObject, JsonValue } from '../../core/json.js';
import { childPointer } from '../../core/problem.js';
import type { Problem } from '../../core/problem.js';
import { problemsDetails, throwIfProblems } from '../../core/schema-validator.js';
import type { WireCodec } from '../codec.js';
import {
  NOVA_BROADCAST_ALIAS,
  NOVA_METADATA_CORE_KEYS,
  NOVA_MESSAGE_TYPES,
  NOVA_SCHEMA_VERSION,
  NOVA_SUPPORTED_SCHEMA_VERSIONS,
} from './envelope.js';
import type { NovaEnvelope, NovaMessageType } from './envelope.js';
import { NOVA_RESERVED_EXTENSION_PREFIX, novaVersionProblem, validateNova } from './validate.js';
import { parseJson } from '../../core/parse-json.js';

/** Core extension recording that the wire said `*` rather than `broadcast`. */
export const NOVA_TO_EXTENSION = '_x_nova_to';
/** Core extension holding the metadata keys that are not core fields. */
export const NOVA_METADATA_EXTENSION = '_x_nova_metadata';

/** Options for {@link createNovaCodec} and {@link encodeNova}. */
export interface NovaCodecInit {
  /**
   * The clock that stamps an envelope without `timestamp` on encode.
   * @default () => new Date()
   */
  readonly clock?: () => Date;
}

const isNovaType = (kind: EnvelopeKind): kind is NovaMessageType =>
  (NOVA_MESSAGE_TYPES as readonly string[]).includes(kind);

/**
 * Decodes a Nova envelope to a core Envelope.
 *
 * @throws PlexusError `VERSION_MISMATCH` when `schemaVersion` is one this node does not read
 *   (the message names the version found and the ones supported; `details.found`,
 *   `details.supported`); `INVALID_REQUEST` with `details.problems` for any other problem.
 */
export function decodeNova(input: unknown): Envelope {
  const versionProblem = novaVersionProblem(input);
  if (versionProblem !== undefined) {
    const found = (input as JsonObject)['schemaVersion'] as string;
    throw new PlexusError(
      'VERSION_MISMATCH',
      `Nova envelope schemaVersion ${JSON.stringify(found)} is not supported; supported: ${NOVA_SUPPORTED_SCHEMA_VERSIONS.join(', ')}`,
      {
        details: {
          found,
          supported: [...NOVA_SUPPORTED_SCHEMA_VERSIONS],
          ...problemsDetails([versionProblem]),
        },
      },
    );
  }
  throwIfProblems(validateNova(input), 'Nova envelope', 'INVALID_REQUEST');
  const wire = input as NovaEnvelope & JsonObject;
  const out: Record<string, unknown> = {
    id: wire.id,
    kind: wire.type,
    from: wire.from,
    to: wire.to === NOVA_BROADCAST_ALIAS ? BROADCAST : wire.to,
    verb: wire.verb ?? '',
    data: wire.payload,
    correlationId: wire.correlationId,
    timestamp: wire.timestamp,
    schemaVersion: wire.schemaVersion,
  };
  const extensions: JsonObject = {};
  if (wire.to === NOVA_BROADCAST_ALIAS) extensions[NOVA_TO_EXTENSION] = NOVA_BROADCAST_ALIAS;
  if (wire.metadata !== undefined) {
    const other: JsonObject = {};
    for (const [key, value] of Object.entries(wire.metadata)) {
      if ((NOVA_METADATA_CORE_KEYS as readonly string[]).includes(key)) out[key] = value;
      else other[key] = value as JsonValue;
    }
    const carriesCore = NOVA_METADATA_CORE_KEYS.some((k) => wire.metadata?.[k] !== undefined);
    if (Object.keys(other).length > 0 || !carriesCore) extensions[NOVA_METADATA_EXTENSION] = other;
  }
  for (const [key, value] of Object.entries(wire)) {
    if (key.startsWith('_x_')) extensions[key] = value;
  }
  if (Object.keys(extensions).length > 0) out['extensions'] = extensions;
  return out as unknown as Envelope;
}

/**
 * Encodes a core Envelope as a Nova envelope.
 *
 * @throws PlexusError `INVALID_PARAMS` with `details.problems` when the envelope has no Nova
 *   form: kind `hello`, an extension key without `_x_` or with a reserved `_x_nova_` name,
 *   `_x_nova_metadata` that is not an object, or fields that break the Nova schema.
 */
export function encodeNova(envelope: Envelope, init: NovaCodecInit = {}): NovaEnvelope {
  const problems: Problem[] = [];
  if (!isNovaType(envelope.kind)) {
    problems.push({
      pointer: '/kind',
      message: `an envelope of kind "${envelope.kind}" has no Nova form; Nova has ${NOVA_MESSAGE_TYPES.join(', ')}`,
    });
  }
  const ext = envelope.extensions ?? {};
  const schemaVersion =
    envelope.schemaVersion !== undefined && NOVA_SUPPORTED_SCHEMA_VERSIONS.includes(envelope.schemaVersion)
      ? envelope.schemaVersion
      : NOVA_SCHEMA_VERSION;
  const wire: Record<string, unknown> = {
    schemaVersion,
    id: envelope.id,
    type: envelope.kind,
    from: envelope.from,
    to:
      envelope.to === BROADCAST && ext[NOVA_TO_EXTENSION] === NOVA_BROADCAST_ALIAS
        ? NOVA_BROADCAST_ALIAS
        : envelope.to,
    correlationId: envelope.correlationId ?? envelope.id,
    timestamp: envelope.timestamp ?? (init.clock ?? (() => new Date()))().toISOString(),
    payload: envelope.data,
  };
  if (envelope.verb !== '') wire['verb'] = envelope.verb;

  const metadata: Record<string, JsonValue | EnvelopeSignature> = {};
  for (const key of NOVA_METADATA_CORE_KEYS) {
    const value = envelope[key];
    if (value !== undefined) metadata[key] = value;
  }
  const extra = ext[NOVA_METADATA_EXTENSION];
  if (extra !== undefined) {
    if (!isJsonObject(extra)) {
      problems.push({
        pointer: childPointer('/extensions', NOVA_METADATA_EXTENSION),
        message: 'must be an object of metadata keys',
      });
    } else {
      for (const [key, value] of Object.entries(extra)) {
        if ((NOVA_METADATA_CORE_KEYS as readonly string[]).includes(key)) {
          problems.push({
            pointer: childPointer(childPointer('/extensions', NOVA_METADATA_EXTENSION), key),
            message: `"${key}" is a core envelope field; set envelope.${key} instead`,
          });
        } else {
          metadata[key] = value;
        }
      }
    }
  }
  if (extra !== undefined || Object.keys(metadata).length > 0) wire['metadata'] = metadata;

  for (const [key, value] of Object.entries(ext)) {
    if (key === NOVA_TO_EXTENSION || key === NOVA_METADATA_EXTENSION) continue;
    const pointer = childPointer('/extensions', key);
    if (!key.startsWith('_x_'))
      problems.push({ pointer, message: `extension key "${key}" must start with "_x_"` });
    else if (key.startsWith(NOVA_RESERVED_EXTENSION_PREFIX)) {
      problems.push({
        pointer,
        message: `"${key}" is not an extension the Nova codec knows (the "${NOVA_RESERVED_EXTENSION_PREFIX}" prefix is reserved)`,
      });
    } else wire[key] = value;
  }
  if (problems.length === 0) problems.push(...validateNova(wire));
  throwIfProblems(problems, 'envelope cannot be encoded as a Nova envelope');
  return wire as unknown as NovaEnvelope;
}

/**
 * Writes a Nova envelope as JSON text (Req. 13.1), after validating it.
 * @throws PlexusError as {@link decodeNova} does, when `envelope` is not a valid Nova envelope.
 */
export function serializeNova(envelope: NovaEnvelope): string {
  decodeNova(envelope);
  return JSON.stringify(envelope);
}

/**
 * Reads a Nova envelope from JSON text (Req. 13.2) and validates it.
 * @throws PlexusError `PARSE_ERROR` for text that is not JSON; `VERSION_MISMATCH` for an
 *   unknown `schemaVersion`; `INVALID_REQUEST` with `details.problems` otherwise.
 */
export function deserializeNova(text: string): NovaEnvelope {
  const value: unknown = parseJson(text, 'Nova envelope');
  decodeNova(value);
  return value as NovaEnvelope;
}

/**
 * A {@link WireCodec} for the Nova face.
 *
 * @example
 * const codec = createNovaCodec();
 * const envelope = codec.decode(JSON.parse(text));
 */
export function createNovaCodec(init: NovaCodecInit = {}): WireCodec<NovaEnvelope> {
  return {
    format: 'nova',
    validate: validateNova,
    decode: decodeNova,
    encode: (envelope) => encodeNova(envelope, init),
  };
}

/** The Nova codec with the system clock. */
export const novaCodec: WireCodec<NovaEnvelope> = createNovaCodec();
