/**
 * The pluggable text embedder of the memory primitive: anything that turns texts into
 * fixed-length float vectors. Two ship with Plexus: {@link hashedEmbedder} (offline, no
 * model, deterministic) and {@link openAiEmbedder} (any OpenAI-compatible `/embeddings`
 * endpoint).
 */
import type { SignalOptions } from '../../store/event-log.js';

/** Turns texts into vectors. */
export interface Embedder {
  /**
   * Names the embedding space (model and size): vectors are only compared with vectors of
   * the same id. Stored in every `memory.stored` event.
   */
  readonly id: string;
  /** Vector length; `undefined` until known (a remote model's default size). */
  readonly dimensions: number | undefined;
  /**
   * True when the vector of a text is a pure function of the text computed locally, so the
   * log need not carry vectors and replay recomputes them ({@link Embedder.embedSync} is then
   * required).
   */
  readonly deterministic: boolean;
  /**
   * The vectors of `texts`, in order (not necessarily normalised).
   * @throws PlexusError `UNAVAILABLE` / `TIMEOUT` when a remote model fails; `CANCELLED` when aborted.
   */
  embed(texts: readonly string[], options?: SignalOptions): Promise<Float32Array[]>;
  /** The vector of one text, synchronously (deterministic embedders only). */
  embedSync?(text: string): Float32Array;
}
