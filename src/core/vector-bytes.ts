// Vectors as reson keeps them: Float32 little-endian bytes whatever the machine's byte order
// (the layout sqlite-vec reads and the in-process index loads), and the content hash that keys
// the embedding cache, so the same text is never embedded twice with the same model. One
// definition for the store and the embedding providers.
import { createHash } from "node:crypto";
import { endianness } from "node:os";
import { ResonError } from "./errors.js";

const LITTLE_ENDIAN = endianness() === "LE";

/** 4 bytes per dimension, little-endian. */
export function vectorToBytes(vector: Float32Array): Buffer {
  if (LITTLE_ENDIAN) return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
  const bytes = Buffer.alloc(vector.length * 4);
  for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i] ?? 0, i * 4);
  return bytes;
}

/** The inverse of vectorToBytes; a copy (the bytes may not be 4-byte aligned, and the caller may keep it). */
export function bytesToVector(bytes: Uint8Array): Float32Array {
  if (bytes.byteLength % 4 !== 0) {
    throw new ResonError(
      "internal_error",
      `A stored vector has ${bytes.byteLength} bytes, not a multiple of 4.`,
      {
        hint: "The stored vectors or the embedding cache are damaged; forget the affected memory and it will be embedded again.",
      },
    );
  }
  const vector = new Float32Array(bytes.byteLength / 4);
  if (LITTLE_ENDIAN) {
    new Uint8Array(vector.buffer).set(bytes);
    return vector;
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < vector.length; i++) vector[i] = view.getFloat32(i * 4, true);
  return vector;
}

/** sha256 of the text's UTF-8 bytes, hex: the key of a cached embedding. */
export function contentHash(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}
