// Google's Gemini API embeddings: POST {baseUrl}/models/{model}:batchEmbedContents with
// { requests: [{ model: "models/{model}", content: { parts: [{ text }] } }] }, answered by
// { embeddings: [{ values }] } in request order. The key goes in the x-goog-api-key header,
// not the query string, so it never appears in a URL or a log line.
import { PROTOCOL_MAX_BATCH } from "./catalog.js";
import { EmbeddingFormatError, type EmbeddingProtocol, isRecord, numberArray } from "./protocol.js";
import type { EmbeddingSettings } from "./types.js";

export function googleProtocol(settings: EmbeddingSettings): EmbeddingProtocol {
  const model = settings.model.replace(/^models\//, "");
  const headers: Record<string, string> = { "content-type": "application/json", "user-agent": "reson" };
  if (settings.apiKey) headers["x-goog-api-key"] = settings.apiKey;
  const url = `${settings.baseUrl}/models/${encodeURIComponent(model)}:batchEmbedContents`;
  return {
    maxBatch: PROTOCOL_MAX_BATCH.google,
    request: (texts) => ({
      url,
      headers,
      body: JSON.stringify({
        requests: texts.map((text) => ({
          model: `models/${model}`,
          content: { parts: [{ text }] },
          ...(settings.dimensions !== undefined ? { outputDimensionality: settings.dimensions } : {}),
        })),
      }),
    }),
    vectors: (body) => {
      const embeddings = isRecord(body) ? body.embeddings : undefined;
      if (!Array.isArray(embeddings))
        throw new EmbeddingFormatError('the response has no "embeddings" array');
      return embeddings.map((item: unknown, i) =>
        numberArray(isRecord(item) ? item.values : undefined, `embeddings[${i}].values`),
      );
    },
  };
}
