/**
 * Content safety for `guard.checkSafety`: a policy says which checks run — personal data,
 * secrets (both from {@link detectPii}), prompt-injection patterns and blocked terms — and
 * every hit becomes a flag with its type, kind and character span (UTF-16 offsets into the
 * string; for structured content, also the JSON pointer of the string).
 */
import { PlexusError } from '../../core/errors.js';
import type { JsonValue } from '../../core/json.js';
import { detectPii, piiCategory } from './pii.js';

/** Which checks run. Absent fields keep the base policy's value. */
export interface SafetyPolicy {
  /** Personal data: `true` all kinds, a list only those kinds, `false` none. @default true */
  readonly pii?: boolean | readonly string[];
  /** Credentials: `true` all kinds, a list only those kinds, `false` none. @default true */
  readonly secrets?: boolean | readonly string[];
  /** Prompt-injection patterns ({@link INJECTION_PATTERNS}). @default true */
  readonly promptInjection?: boolean;
  /** Terms flagged wherever they occur as whole words, case-insensitively. @default [] */
  readonly blockedTerms?: readonly string[];
  /** Fail with `SAFETY_VIOLATION` (−32004) instead of answering `safe: false`. @default false */
  readonly enforce?: boolean;
}

/** A policy with every field decided. */
export interface ResolvedSafetyPolicy {
  readonly pii: boolean | readonly string[];
  readonly secrets: boolean | readonly string[];
  readonly promptInjection: boolean;
  readonly blockedTerms: readonly string[];
  readonly enforce: boolean;
}

/** The policy of a node that configures nothing. */
export const DEFAULT_SAFETY_POLICY: ResolvedSafetyPolicy = {
  pii: true,
  secrets: true,
  promptInjection: true,
  blockedTerms: [],
  enforce: false,
};

/** One problem found in the content. */
export interface SafetyFlag {
  /** `pii`, `secret`, `prompt_injection` or `blocked_term`. */
  readonly type: 'pii' | 'secret' | 'prompt_injection' | 'blocked_term';
  /** The kind: a {@link detectPii} kind, an injection pattern id, or `blocked_term`. */
  readonly kind: string;
  /** Offset of the first UTF-16 code unit. */
  readonly start: number;
  /** Offset after the last. */
  readonly end: number;
  /** The blocked term that matched (blocked terms only). */
  readonly term?: string;
  /** JSON pointer of the string inside structured content (absent for string content). */
  readonly pointer?: string;
}

/**
 * Prompt-injection patterns, each with its id (the flag's kind). Bounded repetition only, so
 * a scan stays linear. They catch the common phrasings; they are a tripwire, not a proof of
 * safety.
 */
export const INJECTION_PATTERNS: readonly { readonly id: string; readonly re: RegExp }[] = [
  {
    id: 'ignore_instructions',
    re: /\b(?:ignore|disregard|forget|skip|override)\s{1,4}(?:(?:all|any|the|your|my|of|these|those)\s{1,4}){0,3}(?:previous|prior|above|earlier|preceding|foregoing|system|original|initial)\s{1,4}(?:instructions?|prompts?|rules|directions|directives|guidelines|context|messages?)\b/gi,
  },
  {
    id: 'reveal_system_prompt',
    re: /\b(?:reveal|show|print|display|repeat|output|leak|dump|tell\s{1,4}me)\s{1,4}(?:me\s{1,4})?(?:your|the)\s{1,4}(?:system\s{1,4}prompt|(?:initial|hidden|original|secret)\s{1,4}(?:prompt|instructions)|system\s{1,4}(?:message|instructions))\b/gi,
  },
  {
    id: 'role_override',
    re: /\byou\s{1,4}are\s{1,4}(?:now\s{1,4})?(?:in\s{1,4})?(?:DAN|developer\s{1,4}mode|jailbroken|jailbreak\s{1,4}mode|unrestricted|unfiltered|no\s{1,4}longer\s{1,4}(?:an?\s{1,4})?(?:AI|assistant|bound\s{1,4}by))\b|\b(?:act|behave|pretend)\s{1,4}(?:as|like|to\s{1,4}be)\s{1,4}(?:an?\s{1,4})?(?:unrestricted|unfiltered|jailbroken|uncensored)\b|\bdo\s{1,4}anything\s{1,4}now\b|\bdeveloper\s{1,4}mode\s{1,4}(?:enabled|on|activated)\b/gi,
  },
  {
    id: 'bypass_safety',
    re: /\b(?:bypass|disable|ignore|turn\s{1,4}off|deactivate)\s{1,4}(?:(?:your|the|all|any)\s{1,4}){0,2}(?:safety|content|ethical|moderation)\s{1,4}(?:filters?|guidelines|restrictions|policies|rules|checks)\b/gi,
  },
  {
    id: 'new_instructions',
    re: /(?:^|\n)[ \t]{0,8}(?:new|updated|real|actual)\s{1,4}(?:system\s{1,4})?instructions?\s{0,4}:/gi,
  },
  {
    id: 'chat_template',
    re: /<\|(?:im_start|im_end|system|endoftext)\|>|\[\/?INST\]|<<\/?SYS>>|(?:^|\n)[ \t]{0,8}#{2,4}[ \t]{0,4}(?:system|instructions?)[ \t]{0,4}:/gi,
  },
];

/** Most blocked terms one policy may list, and the longest term. */
export const MAX_BLOCKED_TERMS = 500;
const MAX_TERM_LENGTH = 200;

/**
 * The effective policy: `override`'s fields over `base`; blocked terms of both are kept.
 * @throws PlexusError `INVALID_PARAMS` naming `policy.blockedTerms` for an empty, too long or
 *   too many terms, and `policy.pii` / `policy.secrets` for an unknown kind.
 */
export function resolveSafetyPolicy(
  base: ResolvedSafetyPolicy,
  override: SafetyPolicy = {},
): ResolvedSafetyPolicy {
  const terms = [...new Set([...base.blockedTerms, ...(override.blockedTerms ?? [])])];
  const bad = (field: string, why: string): PlexusError =>
    new PlexusError('INVALID_PARAMS', `policy.${field} ${why}`, {
      details: { field: `policy.${field}`, problems: [{ pointer: `/policy/${field}`, message: why }] },
    });
  if (terms.length > MAX_BLOCKED_TERMS)
    throw bad('blockedTerms', `must list at most ${MAX_BLOCKED_TERMS} terms`);
  for (const term of terms) {
    if (term.trim().length === 0 || term.length > MAX_TERM_LENGTH) {
      throw bad('blockedTerms', `must hold terms of 1 to ${MAX_TERM_LENGTH} characters, not blank`);
    }
  }
  for (const field of ['pii', 'secrets'] as const) {
    const value = override[field];
    if (!Array.isArray(value)) continue;
    const category = field === 'pii' ? 'pii' : 'secret';
    for (const kind of value as readonly string[]) {
      if (piiCategory(kind) !== category)
        throw bad(field, `names an unknown ${category} kind ${JSON.stringify(kind)}`);
    }
  }
  return {
    pii: override.pii ?? base.pii,
    secrets: override.secrets ?? base.secrets,
    promptInjection: override.promptInjection ?? base.promptInjection,
    blockedTerms: terms,
    enforce: override.enforce ?? base.enforce,
  };
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** One regex matching any blocked term as a whole word (longest first), or undefined. */
function termsRegExp(terms: readonly string[]): RegExp | undefined {
  if (terms.length === 0) return undefined;
  const alternatives = [...terms]
    .sort((a, b) => b.length - a.length)
    .map(escapeRegExp)
    .join('|');
  return new RegExp(`(?<![\\p{L}\\p{N}_])(?:${alternatives})(?![\\p{L}\\p{N}_])`, 'giu');
}

function allows(setting: boolean | readonly string[], kind: string): boolean {
  return setting === true || (Array.isArray(setting) && setting.includes(kind));
}

/** Flags of one string, sorted by position. */
function scanText(text: string, policy: ResolvedSafetyPolicy, terms: RegExp | undefined): SafetyFlag[] {
  const flags: SafetyFlag[] = [];
  if (policy.pii !== false || policy.secrets !== false) {
    for (const f of detectPii(text)) {
      const type = piiCategory(f.kind) ?? 'pii';
      if (allows(type === 'pii' ? policy.pii : policy.secrets, f.kind)) {
        flags.push({ type, kind: f.kind, start: f.start, end: f.end });
      }
    }
  }
  if (policy.promptInjection) {
    for (const { id, re } of INJECTION_PATTERNS) {
      for (const m of text.matchAll(re)) {
        const lead = /^\s*/.exec(m[0])?.[0].length ?? 0; // patterns anchored on a line start
        flags.push({ type: 'prompt_injection', kind: id, start: m.index + lead, end: m.index + m[0].length });
      }
    }
  }
  if (terms !== undefined) {
    for (const m of text.matchAll(terms)) {
      const term = policy.blockedTerms.find((t) => t.toLowerCase() === m[0].toLowerCase()) ?? m[0];
      flags.push({
        type: 'blocked_term',
        kind: 'blocked_term',
        term,
        start: m.index,
        end: m.index + m[0].length,
      });
    }
  }
  return flags.sort((a, b) => a.start - b.start || a.end - b.end);
}

const pointerToken = (key: string): string => key.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * Checks `content` (a string, or any JSON whose strings are each checked) against `policy`.
 * Flags come in document order; `safe` is true when there are none.
 */
export function checkContent(
  content: JsonValue,
  policy: ResolvedSafetyPolicy,
): { safe: boolean; flags: SafetyFlag[] } {
  const terms = termsRegExp(policy.blockedTerms);
  if (typeof content === 'string') {
    const flags = scanText(content, policy, terms);
    return { safe: flags.length === 0, flags };
  }
  const flags: SafetyFlag[] = [];
  const walk = (value: JsonValue, pointer: string): void => {
    if (typeof value === 'string') {
      for (const f of scanText(value, policy, terms)) flags.push({ ...f, pointer });
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => {
        walk(item, `${pointer}/${i}`);
      });
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) walk(item, `${pointer}/${pointerToken(key)}`);
    }
  };
  walk(content, '');
  return { safe: flags.length === 0, flags };
}

/** Total length of the strings inside `value` (what a scan reads). */
export function contentLength(value: JsonValue): number {
  if (typeof value === 'string') return value.length;
  if (Array.isArray(value)) return value.reduce<number>((n, item) => n + contentLength(item), 0);
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).reduce<number>((n, [k, item]) => n + k.length + contentLength(item), 0);
  }
  return 0;
}
