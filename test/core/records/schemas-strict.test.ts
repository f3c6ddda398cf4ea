import { describe, expect, it } from 'vitest';
import {
  AGENT_CARD_SCHEMA,
  ENVELOPE_SCHEMA,
  EVENT_SCHEMA,
  JOB_SCHEMA,
  VERB_SPEC_SCHEMA,
} from '../../../src/core/records/index.js';
import { JSON_SCHEMA_DIALECT, createSchemaValidator } from '../../../src/core/schema-validator.js';

const SCHEMAS = { AGENT_CARD_SCHEMA, ENVELOPE_SCHEMA, EVENT_SCHEMA, JOB_SCHEMA, VERB_SPEC_SCHEMA };

describe('core record schemas', () => {
  it.each(Object.entries(SCHEMAS))('%s compiles under Ajv strict mode', (_name, schema) => {
    expect(() => createSchemaValidator({ strict: true }).compile(schema)).not.toThrow();
  });

  it.each(Object.entries(SCHEMAS))('%s declares the 2020-12 dialect and a unique $id', (_name, schema) => {
    expect(schema.$schema).toBe(JSON_SCHEMA_DIALECT);
    expect(schema.$id).toMatch(/^https:\/\/plexus\.dev\/schemas\/core\/[a-z-]+\.json$/);
  });

  it('have distinct ids', () => {
    const ids = Object.values(SCHEMAS).map((s) => s.$id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
