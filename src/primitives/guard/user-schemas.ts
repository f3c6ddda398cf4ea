/**
 * Validation against schemas that callers send (`guard.validate`). Ajv keeps every schema it
 * compiled, so compiling arbitrary schemas from the network on one long-lived instance would
 * grow without bound: this validator caches compiled schemas by their JSON text and starts a
 * fresh Ajv instance (dropping the old one and its cache) after a fixed number of distinct
 * schemas.
 */
import { PlexusError, toPlexusError } from '../../core/errors.js';
import type { JsonValue } from '../../core/json.js';
import type { Problem } from '../../core/problem.js';
import { createSchemaValidator, type JsonSchema, type SchemaValidator } from '../../core/schema-validator.js';

/** Validates values against caller-supplied schemas with bounded memory. */
export interface UserSchemaValidator {
  /**
   * Every problem of `value` against `schema`; empty when valid.
   * @throws PlexusError `INVALID_PARAMS` naming `schema` when it is not a valid JSON Schema 2020-12.
   */
  validate(schema: JsonSchema, value: JsonValue): Problem[];
}

/**
 * Creates a validator that keeps at most `capacity` compiled schemas.
 * @param capacity distinct schemas per Ajv instance. @default 256
 */
export function userSchemaValidator(capacity = 256): UserSchemaValidator {
  let ajv: SchemaValidator = createSchemaValidator();
  let compiled = new Map<string, (value: unknown) => Problem[]>();
  return {
    validate(schema, value) {
      const text = JSON.stringify(schema);
      let check = compiled.get(text);
      if (check === undefined) {
        if (compiled.size >= capacity) {
          ajv = createSchemaValidator();
          compiled = new Map();
        }
        try {
          check = ajv.compile(schema);
        } catch (cause) {
          const why = toPlexusError(cause).message;
          throw new PlexusError('INVALID_PARAMS', `schema: ${why}`, {
            cause,
            details: { field: 'schema', problems: [{ pointer: '/schema', message: why }] },
          });
        }
        compiled.set(text, check);
      }
      return check(value);
    },
  };
}
