/**
 * What a loaded manifest is (docs/manifest.md): the declared types compiled to JSON Schema,
 * every era of every verb as a core {@link VerbSpec}, and the sandbox limits of each era.
 */
import type { JsonObject } from '../../../core/json.js';
import type { VerbSpec } from '../../../core/records/verb-spec.js';
import type { VerbVersion } from '../../../core/verb-name.js';
import type { ManifestProblem } from './problems.js';
import type { SchemaLocation } from './schema-builder.js';

/** The manifest file names looked for, in order, when none is named. */
export const MANIFEST_FILE_NAMES = ['plexus.manifest.yaml', 'agentese.manifest.yaml'] as const;

/** The manifest format version this loader reads (`manifest: 1`). */
export const MANIFEST_FORMAT_VERSION = 1;

/** The limits a verb's handler runs under (manifest key `sandbox`). */
export interface SandboxLimits {
  /** Wall-clock limit of one invocation, ms (`timeout_ms`). */
  readonly timeoutMs?: number;
  /** Memory limit, MiB (`memory_mb`). */
  readonly memoryMb?: number;
  /** Largest input accepted, bytes (`max_input_bytes`). */
  readonly maxInputBytes?: number;
  /** Largest output produced, bytes (`max_output_bytes`). */
  readonly maxOutputBytes?: number;
  /** Invocations that may run at once (`concurrency`). */
  readonly concurrency?: number;
  /** Network access: none (`false`), any (`true`) or these hosts. */
  readonly network?: boolean | readonly string[];
}

/** A loaded manifest. */
export interface Manifest {
  /** The file it was read from. */
  readonly file: string;
  /** The manifest's `name`, when given. */
  readonly name?: string;
  /** The manifest's `description`, when given. */
  readonly description?: string;
  /** Each declared type compiled to JSON Schema; references point at `#/$defs/<Name>`. */
  readonly types: Readonly<Record<string, JsonObject>>;
  /**
   * Every era of every verb, in manifest order. Each `input` and `output` is a standalone
   * JSON Schema: `$schema`, the type, and `$defs` holding every declared type it uses.
   */
  readonly verbs: readonly VerbSpec[];
  /** Sandbox limits keyed by `name@version`, for eras that declare them. */
  readonly sandbox: Readonly<Record<string, SandboxLimits>>;
}

/** Where things of a loaded manifest are written. */
export interface ManifestLocations {
  /** Where a schema object of `types` or of a verb's input/output came from. */
  schema(schema: object): SchemaLocation | undefined;
  /** Where the era `name@version` is declared. */
  verb(key: string): SchemaLocation | undefined;
}

/** The result of loading a manifest: the manifest (as far as it could be read), problems, locations. */
export interface ManifestLoad {
  readonly manifest: Manifest;
  /** Every problem found, sorted by position. Errors make the manifest unusable. */
  readonly problems: readonly ManifestProblem[];
  readonly locations: ManifestLocations;
}

/** The key of an era: `name@version`. */
export function eraKey(name: string, version: VerbVersion): string {
  return `${name}@${String(version)}`;
}
