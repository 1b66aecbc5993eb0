// Vectors as reson keeps them: Float32Array, L2-normalised (so cosine similarity is a dot
// product), stored as little-endian float32 bytes whatever the machine's byte order.
import { endianness } from "node:os";
import { ResonError } from "../../core/errors.js";

const LITTLE_ENDIAN_HOST = endianness() === "LE";

/** `values` scaled to length 1 (a zero vector stays zero). */
export function normalizedVector(values: readonly number[]): Float32Array {
  let sum = 0;
  for (const value of values) sum += value * value;
  const norm = Math.sqrt(sum);
  const out = new Float32Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = norm > 0 ? (values[i] ?? 0) / norm : 0;
  return out;
}

/** 4 bytes per dimension, little-endian. */
export function encodeVector(vec: Float32Array): Buffer {
  if (LITTLE_ENDIAN_HOST) return Buffer.from(new Uint8Array(vec.buffer, vec.byteOffset, vec.byteLength));
  const out = Buffer.alloc(vec.length * 4);
  for (let i = 0; i < vec.length; i++) out.writeFloatLE(vec[i] ?? 0, i * 4);
  return out;
}

/** The inverse of encodeVector; a copy, so the result does not share memory with `bytes`. */
export function decodeVector(bytes: Uint8Array): Float32Array {
  if (bytes.byteLength % 4 !== 0) {
    throw new ResonError(
      "internal_error",
      `A stored vector has ${bytes.byteLength} bytes, not a multiple of 4.`,
      {
        hint: "The embedding cache is damaged; clear it and the vectors will be computed again.",
      },
    );
  }
  const out = new Float32Array(bytes.byteLength / 4);
  if (LITTLE_ENDIAN_HOST) {
    new Uint8Array(out.buffer).set(bytes);
    return out;
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}
