// OpenAI's embeddings protocol, which Ollama (/v1/embeddings), vLLM, llama.cpp and most
// gateways also speak: POST {baseUrl}/embeddings with { model, input: string[],
// encoding_format: "float" }, answered by { data: [{ index, embedding }] }.
import { PROTOCOL_MAX_BATCH } from "./catalog.js";
import { EmbeddingFormatError, type EmbeddingProtocol, isRecord, numberArray } from "./protocol.js";
import type { EmbeddingSettings } from "./types.js";

export function openaiProtocol(settings: EmbeddingSettings): EmbeddingProtocol {
  const headers: Record<string, string> = { "content-type": "application/json", "user-agent": "reson" };
  // No key, no header: a local server needs none, and nothing falls back to another key.
  if (settings.apiKey) headers.authorization = `Bearer ${settings.apiKey}`;
  const url = `${settings.baseUrl}/embeddings`;
  return {
    maxBatch: PROTOCOL_MAX_BATCH.openai,
    request: (texts) => ({
      url,
      headers,
      body: JSON.stringify({
        model: settings.model,
        input: texts,
        encoding_format: "float",
        ...(settings.dimensions !== undefined ? { dimensions: settings.dimensions } : {}),
      }),
    }),
    vectors: (body) => {
      const data = isRecord(body) ? body.data : undefined;
      if (!Array.isArray(data)) throw new EmbeddingFormatError('the response has no "data" array');
      const out: number[][] = [];
      data.forEach((item: unknown, position) => {
        if (!isRecord(item)) throw new EmbeddingFormatError(`data[${position}] is not an object`);
        // Servers send the items in order, but `index` is what the protocol promises.
        const index = typeof item.index === "number" ? item.index : position;
        if (!Number.isInteger(index) || index < 0 || index >= data.length || out[index] !== undefined) {
          throw new EmbeddingFormatError(`data[${position}] has an invalid index ${String(item.index)}`);
        }
        out[index] = numberArray(item.embedding, `data[${position}].embedding`);
      });
      return out;
    },
  };
}
