/**
 * The runtime layer (DESIGN §3): the invoker pipeline, the router, the registry, jobs with
 * deadlines and cancellation, idempotency, supervision and recovery — all durable state a
 * projection of the event log.
 *
 * One call, from face to answer (each line: the pipeline step, then the file that runs it):
 *
 *   a face (transports/…)  decodes the wire form, checks size and depth, authenticates
 *        │                 the caller, builds the InvocationContext (context.ts)
 *        ▼  runtime.invoke / runtime.submit                  runtime.ts
 *   validate_envelope      pipeline/invoker.ts
 *   resolve                routing/router.ts (resolveTargets; aliases: agents/verb-aliases.ts)
 *   era                    pipeline/era.ts
 *   validate_input         pipeline/validate-input.ts
 *   verify_signature       pipeline/verify-signature.ts
 *   authorize              pipeline/authorize.ts, pipeline/capability-authorizer.ts
 *   idempotency            pipeline/idempotency.ts
 *   pre_effects            pipeline/effects.ts → effects/effect-runner.ts
 *        │                 `job.submitted` is recorded; the job is queued
 *        ▼                                                   jobs/job-runner.ts
 *   route                  jobs/job-runner.ts (selectCandidate: routing/router.ts)
 *   execute                pipeline/executor.ts: a local handler under supervision
 *        │                 (supervision/supervisor.ts) with its deadline (jobs/deadline.ts),
 *        │                 or another node (routing/remote.ts, routing/routing-invoker.ts)
 *   post_effects           jobs/job-runner.ts → effects/effect-runner.ts
 *   encode                 pipeline/answers.ts
 *        ▼
 *   the face writes the answer in its own form (and its own error table)
 *
 * Jobs are a projection of the log (jobs/jobs-projection.ts); after a restart
 * jobs/recovery.ts finishes or fails what was running. The agents a node hosts and their cards
 * are agents/registry.ts over agents/registry-projection.ts.
 */
export {
  DEFAULT_RESTART_POLICY,
  checkHandlers,
  checkVerbSpecs,
  defineAgent,
  type AgentDefinition,
  type AgentDefinitionInit,
  type AgentStopHook,
  type AgentHandlers,
  type AgentInstanceContext,
  type RestartPolicy,
  type RestartStrategy,
} from './agents/agent.js';
export type {
  AgentOfferings,
  AgentPrompt,
  AgentPromptArgument,
  AgentResource,
  ArgumentCompleter,
  OfferingCaller,
  ResourceBody,
} from './agents/agent-offerings.js';
export type { RegistrationCandidate, RegistrationCheck } from './agents/registration-check.js';
export type {
  FaceName,
  FaceNames,
  HandlerContext,
  HandlerTelemetry,
  InvocationContext,
  InvocationMode,
  Principal,
  VerbHandler,
} from './context.js';
export {
  DEFAULT_MAX_TIMEOUT_MS,
  DEFAULT_TIMEOUT_MS,
  abortError,
  asError,
  raceAbort,
  resolveTimeout,
  type JobDeadline,
  type TimeoutLimits,
} from './jobs/deadline.js';
export {
  ESRP_JOB_EVENT_NAMES,
  JOB_EVENT_TYPES,
  RUNTIME_EVENTS,
  TERMINAL_JOB_EVENT_TYPES,
  isJobEventType,
  type AgentCardEventData,
  type AgentRemovedData,
  type EsrpJobEventName,
  type JobCompletedData,
  type JobErrorData,
  type JobEventType,
  type JobProgressData,
  type JobStartedData,
  type JobSubmittedData,
  type RouteKind,
  type RuntimeEventType,
} from './events.js';
export {
  IDEMPOTENCY_PROJECTION_NAME,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  applyIdempotencyEvent,
  idempotencyIdentity,
  idempotencyProjection,
  releasesKey,
  type IdempotencyEntry,
  type IdempotencyIdentity,
  type IdempotencyState,
} from './pipeline/idempotency.js';
export {
  readJobEvents,
  toJobEvent,
  watchJobEvents,
  type JobEvent,
  type JobEventsOptions,
} from './jobs/job-events.js';
export {
  JOBS_PROJECTION_NAME,
  applyJobEvent,
  jobsProjection,
  type JobEntry,
  type JobsState,
} from './jobs/jobs-projection.js';
export {
  DEFAULT_JOB_LIST_LIMIT,
  MAX_JOB_LIST_LIMIT,
  type JobListQuery,
  type JobPage,
} from './jobs/job-list-query.js';
export {
  memoryObserver,
  noopObserver,
  teeObserver,
  underSpan,
  type MemoryObserver,
  type Observer,
  type ObserverAttributes,
  type ObserverEndAttributes,
  type ObserverSpan,
  type ObserverSpanKind,
  type ObserverSpanOptions,
  type RecordedSpan,
} from './observer.js';
export {
  principalOf,
  type AuthorizationRequest,
  type Authorizer,
  type AuthorizeOptions,
} from './pipeline/authorize.js';
export { JOB_EXTENSION, errorEnvelope, responseEnvelope, type AnswerMeta } from './pipeline/encode.js';
export {
  WARNINGS_EXTENSION,
  eraStatusAt,
  eraWarning,
  eraWarnings,
  sunsetError,
  warningsOf,
  type EraWarning,
} from './pipeline/era.js';
export { PIPELINE_STEPS, stepSpanName, type PipelineStep } from './pipeline/steps.js';
export { type VerifySignatureOptions } from './pipeline/verify-signature.js';
export {
  REGISTRY_PROJECTION_NAME,
  applyRegistryEvent,
  registryProjection,
  type RegistryEntry,
  type RegistryState,
} from './agents/registry-projection.js';
export {
  compareIds,
  createRegistry,
  type Registry,
  type RegistryInit,
  type UpsertOptions,
} from './agents/registry.js';
export type { RemoteInvoker } from './routing/remote.js';
export {
  resolveTargets,
  selectCandidate,
  type Candidate,
  type Resolution,
  type RouteState,
  type TargetKind,
} from './routing/router.js';
export { createRuntime } from './runtime.js';
export type { RuntimeAgents } from './agents/runtime-agents.js';
export {
  discoveryPort,
  type CapabilityDiscovery,
  type DiscoveryPort,
  type DiscoveryPortInit,
} from './agents/capability-discovery.js';
export {
  GEO_EXTENSION,
  PEER_CARD_MAX_TASK_TYPES,
  PEER_CARD_MAX_TOOLS,
  cardGeoProblem,
  geoProblem,
  peerCardOf,
  peerCardProblem,
  peerCardsPort,
  reputationProblem,
  type PeerCard,
  type PeerCardSource,
  type PeerCardsPort,
  type PeerTool,
} from './agents/peer-cards.js';
export {
  PRIOR_WEIGHT,
  REPUTATION_PRIOR,
  agentOutcomes,
  blendReputation,
  type AgentOutcome,
  type AgentOutcomes,
  type AgentRank,
} from './agents/agent-outcomes.js';
export type { CancelOptions, ProvideInputOptions, RuntimeJobs, WaitOptions } from './jobs/runtime-jobs.js';
export type {
  Invocation,
  Runtime,
  RuntimeComponents,
  RuntimeInit,
  StopOptions,
  Submission,
} from './runtime-interface.js';
export {
  STOP_HOOK_TIMEOUT_MS,
  createSupervisor,
  type AgentLease,
  type AgentSupervisor,
  type CrashOrigin,
  type SupervisorComponents,
} from './supervision/supervisor.js';
export { createAgentTree, type AgentTree, type AgentTreeComponents } from './supervision/agent-tree.js';
export { checkAgentTree, namedAgents, type NamedAgent } from './supervision/agent-tree-check.js';
export {
  SUPERVISION_EVENTS,
  type FailureCause,
  type FailureKind,
  type SupervisionEventType,
} from './supervision/supervision-events.js';
export {
  AUDIT_CAPABILITY_EVENT,
  CAPABILITY_DECISIONS,
  capabilityAuthorizer,
  capabilityOf,
  type CapabilityAuthorizer,
  type CapabilityAuthorizerComponents,
  type CapabilityAuthorizerInit,
  type CapabilityDecision,
} from './pipeline/capability-authorizer.js';
export {
  REVOCATIONS_PROJECTION_NAME,
  UCAN_REVOKED_EVENT,
  createRevocations,
  revocationsProjection,
  type Revocations,
  type RevocationsInit,
  type RevocationsState,
  type UcanRevokedData,
} from './pipeline/revocations.js';
export {
  SUPERVISION_STRATEGIES,
  checkSupervisorSpec,
  countRestart,
  isSupervisorSpec,
  restartGroup,
  restartTypeOf,
  type ChildRestart,
  type ChildSpec,
  type SupervisionStrategy,
  type SupervisorSpec,
} from './supervision/supervision-spec.js';
export {
  AUDIT_EFFECT_EVENT,
  BUDGET_RESOURCE,
  LEDGER_EVENTS,
  LEDGER_PROJECTION_NAME,
  RUNTIME_NAMESPACES,
  UNTENANTED_BUDGET,
  auditsHandler,
  budgetExceeded,
  budgetLedger,
  budgetLines,
  budgetReader,
  chainBudgetCaps,
  chargesHandler,
  checkBudgetPolicy,
  createEffectScope,
  effectRegistry,
  effectRunner,
  emitMatches,
  emitsHandler,
  ledgerProjection,
  metersOf,
  principalBudget,
  readerIn,
  reservedTypes,
  resourceMatches,
  runtimeEffects,
  spentOf,
  tenantBudget,
  tenantOfCall,
  ucanBudget,
  ucanBudgets,
  unitsText,
  type AuditsHandlerInit,
  type BudgetAccount,
  type BudgetFigures,
  type BudgetLedger,
  type BudgetLedgerInit,
  type BudgetPolicy,
  type Charge,
  type ChargeLine,
  type ChargeRequest,
  type ChargesHandlerInit,
  type EffectCall,
  type EffectHandler,
  type EffectLeg,
  type EffectOutcome,
  type EffectRegistry,
  type EffectRunner,
  type EffectRunnerInit,
  type EffectScope,
  type EffectScopeInit,
  type EffectsComponents,
  type EffectsInit,
  type EmitsHandlerInit,
  type EmittedEvent,
  type ExtraBudgets,
  type LedgerCreditedData,
  type LedgerDebitedData,
  type LedgerState,
  type ReadRequest,
  type ResourceReader,
  type RuntimeEffects,
} from './effects/index.js';
export {
  createSupervisionTree,
  type ChildExitOptions,
  type SupervisionAction,
  type SupervisionReport,
  type SupervisionTree,
  type SupervisionTreeComponents,
} from './supervision/supervision-tree.js';
export * from './routing/index.js';

// Internals: exported for the other layers and the tests, but marked @internal so the published
// types leave them out (stripInternal; docs/decisions/api.md API-3). They may change in any release.
/** @internal */
export {
  encodeEntry,
  encodeOutcome,
  requestOf,
  requestOfEntry,
  type AnswerComponents,
} from './pipeline/answers.js';
/** @internal */
export { holdContainment, runContained, type ContainmentScope } from './supervision/containment.js';
/** @internal */
export {
  broadcastOutputs,
  runLeg,
  type ExecutedJob,
  type ExecutorComponents,
  type LegResult,
} from './pipeline/executor.js';
/** @internal */
export { accept, type Accepted, type InvokerComponents } from './pipeline/invoker.js';
/** @internal */
export {
  jobEvent,
  newActiveJob,
  takeHeld,
  type ActiveJob,
  type ActiveJobInit,
  type JobOutcome,
} from './jobs/active-job.js';
/** @internal */
export { createJobRunner, type JobRunner, type JobRunnerComponents } from './jobs/job-runner.js';
/** The handler's `ctx.requestInput`: a job waiting for its caller's input (INPUT_REQUIRED). */
export { InputRequired, MAX_INPUT_PROMPT_LENGTH, type RequestInputOptions } from './jobs/input-request.js';
/** The handler's `ctx.sample`: a live channel back to the caller (an MCP client that samples). */
export type {
  CallerChannel,
  CallerRequestOptions,
  SampleRequest,
  SampleResult,
} from './jobs/caller-channel.js';
/** @internal */
export { authenticateStep, authorizeStep } from './pipeline/authorize.js';
/** @internal */
export {
  auditPreEffect,
  runPostEffects,
  runPreEffects,
  type FinishedJob,
  type PostEffect,
  type PreEffect,
  type PreparedCall,
} from './pipeline/effects.js';
/** @internal */
export { runStep } from './pipeline/steps.js';
/** @internal */
export { eraStep } from './pipeline/era.js';
/** @internal */
export { validateEnvelopeStep } from './pipeline/validate-envelope.js';
/** @internal */
export { validateInputStep } from './pipeline/validate-input.js';
/** @internal */
export { verifySignatureStep } from './pipeline/verify-signature.js';
/** @internal */
export {
  isRerunSafe,
  planRecovery,
  type FailItem,
  type RecoveryPlan,
  type RequeueItem,
} from './jobs/recovery.js';
