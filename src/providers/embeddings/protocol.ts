// What the embedding wire protocols share: a request for a batch of texts, and the vectors
// read back from the response body, in input order.
import type { JsonRequest } from "./post-json.js";

export interface EmbeddingProtocol {
  /** The most texts one request may carry. */
  readonly maxBatch: number;
  request(texts: string[]): JsonRequest;
  /** The vectors in input order; throws EmbeddingFormatError when the body is not the protocol's shape. */
  vectors(body: unknown): number[][];
}

/** The response body is not what the protocol promises: retrying would not help. */
export class EmbeddingFormatError extends Error {}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A JSON array of numbers, or a format error naming `where`. */
export function numberArray(value: unknown, where: string): number[] {
  if (!Array.isArray(value) || !value.every((n) => typeof n === "number")) {
    throw new EmbeddingFormatError(`${where} is not an array of numbers`);
  }
  return value as number[];
}
