// Deciding whether bytes are text, and decoding them. Git's rule (a NUL byte in the first
// 8000 bytes means binary) plus a check that the sample is mostly valid UTF-8.

const SAMPLE_BYTES = 8000;
/** Above this share of undecodable characters in the sample, the file is treated as binary. */
const MAX_REPLACEMENT_SHARE = 0.3;

export function looksBinary(bytes: Uint8Array): boolean {
  const sample = bytes.subarray(0, SAMPLE_BYTES);
  if (sample.includes(0)) return true;
  if (sample.length === 0) return false;
  const text = new TextDecoder("utf-8").decode(sample, { stream: true });
  let replacements = 0;
  for (const char of text) if (char === "\uFFFD") replacements += 1;
  return replacements / text.length > MAX_REPLACEMENT_SHARE;
}

/** UTF-8 decoding that keeps a byte-order mark, so writing the text back preserves it. */
export function decodeText(bytes: Uint8Array): string {
  return new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
}
