/**
 * The learning primitive (seed 003 §5.1): playbooks, reflection, curation.
 */
export { LEARNING_PROJECTIONS, learningPrimitive, type LearningInit } from './learning-primitive.js';
export {
  LEARNING_EVENTS,
  LEARNING_PROJECTION_NAME,
  learningProjection,
  playbookKey,
  type BulletAddedData,
  type CuratedData,
  type FeedbackGivenData,
  type LearningState,
  type ReflectedData,
} from './learning-projection.js';
export { TRAINING_MODES, type TrainingMode } from './learning-schemas.js';
export {
  HARMFUL_PRUNE_MIN,
  MAX_BULLET_CHARS,
  PLAYBOOK_SECTIONS,
  bulletId,
  bulletScore,
  curationOrder,
  isHarmful,
  type Bullet,
  type BulletSource,
  type Playbook,
  type PlaybookSection,
} from './playbook.js';
export {
  MAX_NEW_BULLETS,
  checkProposal,
  verdictOf,
  type Execution,
  type ExecutionStep,
  type ProposedBullet,
  type ReflectOptions,
  type ReflectionProposal,
  type ReflectionRequest,
  type Reflector,
  type ReflectorBullet,
  type Verdict,
} from './reflector.js';
export { deterministicReflector, pathOf } from './reflector-deterministic.js';
export {
  REFLECTOR_SYSTEM_PROMPT,
  openAiChatReflector,
  reflectionPrompt,
  type OpenAiChatReflectorInit,
} from './reflector-openai-chat.js';
export { TOKEN_ENCODING, bulletTokens, renderBulletLine, textTokens } from './tokens.js';
