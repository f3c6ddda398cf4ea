/**
 * The vector arithmetic the memory primitive needs: inner products on Float32Array slices,
 * L2 normalisation, and the base64 form of a Float32 vector that events carry.
 */
import { PlexusError } from '../../core/errors.js';

/** Inner product of `a[ao..ao+n)` and `b[bo..bo+n)`, unrolled by four (the hot loop of every scan). */
export function dotAt(a: Float32Array, ao: number, b: Float32Array, bo: number, n: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  const n4 = n - (n % 4);
  for (; i < n4; i += 4) {
    s0 += (a[ao + i] as number) * (b[bo + i] as number);
    s1 += (a[ao + i + 1] as number) * (b[bo + i + 1] as number);
    s2 += (a[ao + i + 2] as number) * (b[bo + i + 2] as number);
    s3 += (a[ao + i + 3] as number) * (b[bo + i + 3] as number);
  }
  for (; i < n; i++) s0 += (a[ao + i] as number) * (b[bo + i] as number);
  return s0 + s1 + s2 + s3;
}

/** Scales `v` in place to unit length and returns it; a zero (or non-finite) vector becomes all zeros. */
export function normalizeInPlace(v: Float32Array): Float32Array {
  const norm = Math.sqrt(dotAt(v, 0, v, 0, v.length));
  if (norm > 0 && Number.isFinite(norm)) {
    for (let i = 0; i < v.length; i++) v[i] = (v[i] as number) / norm;
  } else {
    v.fill(0);
  }
  return v;
}

/** The base64 text of a vector's little-endian IEEE-754 float32 bytes (how events carry vectors). */
export function encodeVector(v: Float32Array): string {
  const bytes = new Uint8Array(v.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < v.length; i++) view.setFloat32(i * 4, v[i] as number, true);
  return Buffer.from(bytes).toString('base64');
}

/**
 * The vector written by {@link encodeVector}.
 *
 * @throws PlexusError `INVALID_PARAMS` when the text is not base64 of whole float32s, a value is
 *   not finite, or the length differs from `dimensions` (when given).
 */
export function decodeVector(text: string, dimensions?: number): Float32Array {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) {
    throw new PlexusError('INVALID_PARAMS', 'a stored vector is not base64 text');
  }
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length % 4 !== 0) {
    throw new PlexusError('INVALID_PARAMS', `a stored vector has ${bytes.length} bytes, not whole float32s`);
  }
  const n = bytes.length / 4;
  if (dimensions !== undefined && n !== dimensions) {
    throw new PlexusError('INVALID_PARAMS', `a stored vector has ${n} dimensions, expected ${dimensions}`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const x = view.getFloat32(i * 4, true);
    if (!Number.isFinite(x))
      throw new PlexusError('INVALID_PARAMS', 'a stored vector holds a non-finite value');
    out[i] = x;
  }
  return out;
}
