// Vectors as stored: Float32 little-endian bytes, the layout sqlite-vec reads and the one the
// in-process index loads, whatever the machine's byte order. Content hashes key the
// embedding cache, so the same text is never embedded twice with the same model.
import { createHash } from "node:crypto";
import { endianness } from "node:os";

const LITTLE_ENDIAN = endianness() === "LE";

export function vectorToBytes(vector: Float32Array): Buffer {
  if (LITTLE_ENDIAN) return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
  const bytes = Buffer.alloc(vector.length * 4);
  for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i] ?? 0, i * 4);
  return bytes;
}

export function bytesToVector(bytes: Uint8Array): Float32Array {
  const vector = new Float32Array(bytes.byteLength / 4);
  if (LITTLE_ENDIAN) {
    // Copied: the bytes may not be 4-byte aligned, and the caller may keep the vector.
    new Uint8Array(vector.buffer).set(bytes.subarray(0, vector.length * 4));
    return vector;
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < vector.length; i++) vector[i] = view.getFloat32(i * 4, true);
  return vector;
}

/** sha256 of the text, hex: the key of a cached embedding. */
export function contentHash(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}
