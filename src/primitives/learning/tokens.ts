/**
 * Token counts of playbook bullets, from a real BPE tokenizer: `gpt-tokenizer` with the
 * `o200k_base` encoding (the encoding of GPT-4o, GPT-4.1, o-series and GPT-5 models). The
 * encoding is imported by name, not through the package's default export, so a future
 * change of the package default cannot silently change stored counts.
 *
 * Counts are taken in the handler and written into events, so a replay never tokenizes.
 */
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

/** The encoding every token count in the learning primitive uses. */
export const TOKEN_ENCODING = 'o200k_base';

/**
 * The tokens a bullet costs in a prompt: the `o200k_base` count of its rendered line
 * `[<id>] <content>` (the form {@link renderBulletLine} gives).
 */
export function bulletTokens(id: string, content: string): number {
  return countTokens(renderBulletLine(id, content));
}

/** A bullet as one line of a rendered playbook: `[str-00042] Prefer analyst reports …`. */
export function renderBulletLine(id: string, content: string): string {
  return `[${id}] ${content}`;
}

/** The `o200k_base` token count of any text. */
export function textTokens(text: string): number {
  return countTokens(text);
}
