/**
 * The AGENTESE verb manifest (seed 002 Parts I, III, IV, X, XII; DESIGN D6): the schema
 * language and its compiler to JSON Schema, the manifest loader with positioned problems,
 * the era diff, effect composition over pipelines, and TypeScript code generation.
 */
export { generateTypeScript, GENERATED_GLOBALS } from './codegen-typescript.js';
export type { TypeScriptCodegenInit } from './codegen-typescript.js';
export { diffManifests } from './era-diff.js';
export type { EraChange } from './era-diff.js';
export { loadManifest, MANIFEST_KEYS, RESERVED_TYPE_PREFIX, TYPE_NAME_PATTERN } from './manifest-loader.js';
export { eraKey, MANIFEST_FILE_NAMES, MANIFEST_FORMAT_VERSION } from './manifest-model.js';
export type { Manifest, ManifestLoad, ManifestLocations, SandboxLimits } from './manifest-model.js';
export { composePipeline, resolveStep } from './pipeline.js';
export type { PipelineResult, PipelineSummary } from './pipeline.js';
export { countProblems, formatManifestProblem, sortManifestProblems } from './problems.js';
export type { ManifestProblem, ManifestSeverity } from './problems.js';
export type { SchemaLocation } from './schema-builder.js';
export { diffSchemas } from './schema-diff.js';
export type { SchemaChange, SchemaDirection } from './schema-diff.js';
export { BUILTIN_TYPES, compileTypeNode, typeRef } from './type-compiler.js';
export type { TypeCompileContext } from './type-compiler.js';
export { parseFieldType, TYPE_CONSTRUCTORS } from './type-parser.js';
export { lexType } from './type-syntax.js';
export type { FieldType, SyntaxProblem, Token, TypeNode } from './type-syntax.js';
