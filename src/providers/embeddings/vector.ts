// Vectors as the embedding providers return them: Float32Array, L2-normalised, so cosine
// similarity is a dot product. Their bytes (encodeVector/decodeVector) are core's one layout.
export { bytesToVector as decodeVector, vectorToBytes as encodeVector } from "../../core/vector-bytes.js";

/** `values` scaled to length 1 (a zero vector stays zero). */
export function normalizedVector(values: readonly number[]): Float32Array {
  let sum = 0;
  for (const value of values) sum += value * value;
  const norm = Math.sqrt(sum);
  const out = new Float32Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = norm > 0 ? (values[i] ?? 0) / norm : 0;
  return out;
}
