/**
 * JSON Schemas (2020-12) of the learning methods' params and results (seed 003 §5.1). The
 * runtime checks params against them (−32602 naming the field) and results too, so they
 * state exactly what the handlers answer.
 */
import type { JsonSchema } from '../../core/schema-validator.js';
import { MAX_BULLET_CHARS, PLAYBOOK_SECTIONS } from './playbook.js';

/** Training modes of `learning.reflect` (seed: Offline, Online, Eval-only). */
export const TRAINING_MODES = ['online', 'offline', 'eval-only'] as const;

/** A training mode. */
export type TrainingMode = (typeof TRAINING_MODES)[number];

/** Largest `maxTokens` accepted by `learning.curate`. */
export const MAX_TOKEN_BUDGET = 1_000_000;

const PLAYBOOK_ID: JsonSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 128,
  pattern: '^[A-Za-z0-9][A-Za-z0-9._:/-]*$',
  description: 'Playbook id: letters, digits and . _ : / - (at most 128).',
};
const SECTION: JsonSchema = { type: 'string', enum: [...PLAYBOOK_SECTIONS] };
const BULLET_ID: JsonSchema = { type: 'string', pattern: '^(str|cal|mis|fbk)-[0-9]{5,}$' };
const COUNT: JsonSchema = { type: 'integer', minimum: 0 };

const BULLET_VIEW: JsonSchema = {
  type: 'object',
  required: ['id', 'section', 'content', 'helpfulCount', 'harmfulCount', 'tokenCount', 'createdAt'],
  properties: {
    id: BULLET_ID,
    section: SECTION,
    content: { type: 'string' },
    helpfulCount: COUNT,
    harmfulCount: COUNT,
    tokenCount: COUNT,
    createdAt: { type: 'string' },
  },
};

const NEW_BULLET: JsonSchema = {
  type: 'object',
  required: ['id', 'section', 'content'],
  properties: { id: BULLET_ID, section: SECTION, content: { type: 'string' } },
};

const STEP: JsonSchema = {
  type: 'object',
  required: ['action'],
  properties: {
    action: { type: 'string', minLength: 1, maxLength: 200 },
    tool: { type: 'string', maxLength: 200 },
    duration: { type: 'number', minimum: 0 },
  },
};

/** Params of `learning.getPlaybook`. */
export const GET_PLAYBOOK_INPUT: JsonSchema = {
  type: 'object',
  required: ['playbookId'],
  additionalProperties: false,
  properties: { playbookId: PLAYBOOK_ID },
};

/** Result of `learning.getPlaybook`. */
export const GET_PLAYBOOK_OUTPUT: JsonSchema = {
  type: 'object',
  required: ['bullets', 'version', 'tokenCount'],
  properties: { bullets: { type: 'array', items: BULLET_VIEW }, version: COUNT, tokenCount: COUNT },
};

/** Params of `learning.reflect`. */
export const REFLECT_INPUT: JsonSchema = {
  type: 'object',
  required: ['playbookId', 'execution'],
  additionalProperties: false,
  properties: {
    playbookId: PLAYBOOK_ID,
    execution: {
      type: 'object',
      required: ['steps', 'outcome'],
      properties: {
        input: true,
        output: true,
        steps: { type: 'array', maxItems: 1000, items: STEP },
        outcome: { type: 'string', minLength: 1, maxLength: 200 },
        reward: { type: 'number', minimum: 0, maximum: 1 },
        usedBullets: { type: 'array', maxItems: 500, items: BULLET_ID },
        feedback: { type: 'string', maxLength: 4000 },
      },
    },
    mode: { type: 'string', enum: [...TRAINING_MODES] },
  },
};

/** Result of `learning.reflect`. */
export const REFLECT_OUTPUT: JsonSchema = {
  type: 'object',
  required: ['newBullets', 'prunedBullets', 'playbookVersion'],
  properties: {
    newBullets: { type: 'array', items: NEW_BULLET },
    prunedBullets: { type: 'array', items: BULLET_ID },
    playbookVersion: COUNT,
  },
};

/** Params of `learning.curate`. */
export const CURATE_INPUT: JsonSchema = {
  type: 'object',
  required: ['playbookId'],
  additionalProperties: false,
  properties: {
    playbookId: PLAYBOOK_ID,
    maxTokens: { type: 'integer', minimum: 0, maximum: MAX_TOKEN_BUDGET },
  },
};

/** Result of `learning.curate`. */
export const CURATE_OUTPUT: JsonSchema = {
  type: 'object',
  required: ['removed', 'remaining', 'tokenCount'],
  properties: { removed: { type: 'array', items: BULLET_ID }, remaining: COUNT, tokenCount: COUNT },
};

/** Params of `learning.addBullet`. */
export const ADD_BULLET_INPUT: JsonSchema = {
  type: 'object',
  required: ['playbookId', 'section', 'content'],
  additionalProperties: false,
  properties: {
    playbookId: PLAYBOOK_ID,
    section: SECTION,
    content: { type: 'string', minLength: 1, maxLength: MAX_BULLET_CHARS, pattern: '\\S' },
  },
};

/** Result of `learning.addBullet`. */
export const ADD_BULLET_OUTPUT: JsonSchema = {
  type: 'object',
  required: ['bulletId'],
  properties: { bulletId: BULLET_ID },
};

/** Params of `learning.feedback`. */
export const FEEDBACK_INPUT: JsonSchema = {
  type: 'object',
  required: ['playbookId', 'bulletId', 'helpful'],
  additionalProperties: false,
  properties: { playbookId: PLAYBOOK_ID, bulletId: BULLET_ID, helpful: { type: 'boolean' } },
};

/** Result of `learning.feedback`. */
export const FEEDBACK_OUTPUT: JsonSchema = {
  type: 'object',
  required: ['helpfulCount', 'harmfulCount'],
  properties: { helpfulCount: COUNT, harmfulCount: COUNT },
};

/** Params of `learning.getStats`. */
export const GET_STATS_INPUT: JsonSchema = GET_PLAYBOOK_INPUT;

/** Result of `learning.getStats`. */
export const GET_STATS_OUTPUT: JsonSchema = {
  type: 'object',
  required: ['totalBullets', 'bySection', 'avgScore', 'version'],
  properties: {
    totalBullets: COUNT,
    bySection: {
      type: 'object',
      required: [...PLAYBOOK_SECTIONS],
      properties: { str: COUNT, cal: COUNT, mis: COUNT, fbk: COUNT },
    },
    avgScore: { type: 'number', minimum: 0, maximum: 1 },
    version: COUNT,
  },
};
