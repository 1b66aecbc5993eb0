// The images a task comes with (an editor's pasted screenshot): checked once, before a run
// starts, against what every provider that reads images accepts (PNG, JPEG, GIF or WebP of at
// most 5 MB, decoded) and against the model, which must read images. They are sent as they are
// stored: in the task's user turn, base64 in canonical form.
import { ResonError } from "../core/errors.js";
import type { ImageContent, ModelInfo, TextContent } from "../providers/index.js";

/** Anthropic's limit per image, and the strictest of the three wire protocols'. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/** The formats the three protocols all accept, by the bytes each file starts with. */
const SIGNATURES: Record<string, (bytes: Buffer) => boolean> = {
  "image/png": (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  "image/jpeg": (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  "image/gif": (b) => ["GIF87a", "GIF89a"].includes(b.subarray(0, 6).toString("latin1")),
  "image/webp": (b) =>
    b.subarray(0, 4).toString("latin1") === "RIFF" && b.subarray(8, 12).toString("latin1") === "WEBP",
};

export const IMAGE_TYPES: readonly string[] = Object.keys(SIGNATURES);

const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;

const invalid = (message: string, hint: string) => new ResonError("usage_error", message, { hint });

/**
 * An image as given (base64 and a MIME type), checked: a known format whose bytes match it, no
 * larger than MAX_IMAGE_BYTES. Returned with its data in canonical base64 (no line breaks).
 */
export function taskImage(data: string, mimeType: string): ImageContent {
  const type = mimeType.trim().toLowerCase();
  const matches = SIGNATURES[type];
  if (!matches)
    throw invalid(
      `Images must be PNG, JPEG, GIF or WebP; this one is ${JSON.stringify(mimeType)}.`,
      "Convert it to PNG first.",
    );
  if (!BASE64.test(data))
    throw invalid("The image's data is not base64.", "Send the image's bytes base64-encoded.");
  const bytes = Buffer.from(data, "base64");
  if (bytes.length > MAX_IMAGE_BYTES)
    throw invalid(
      `The image is ${megabytes(bytes.length)} MB; at most ${megabytes(MAX_IMAGE_BYTES)} MB is taken.`,
      "Send a smaller or more compressed image (a cropped screenshot, JPEG).",
    );
  if (!matches(bytes))
    throw invalid(
      `The image's bytes are not ${type.slice("image/".length).toUpperCase()}.`,
      "Send the image with its real MIME type.",
    );
  return { type: "image", data: bytes.toString("base64"), mimeType: type };
}

/** A run's task images may go to `model`: refused, with what to do, when it reads text only. */
export function assertModelTakesImages(
  model: Pick<ModelInfo, "provider" | "id" | "takesImages">,
  count: number,
): void {
  if (count === 0 || model.takesImages) return;
  throw new ResonError(
    "usage_error",
    `The model ${model.provider}/${model.id} reads text only; this task has ${count === 1 ? "an image" : `${count} images`}.`,
    { hint: "Describe the image in words, or pick a model that reads images (e.g. with /model or -m)." },
  );
}

function megabytes(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(1);
}

/** A task turn's content: the text alone, or the text (when there is some) and then its images. */
export function taskContent(
  text: string,
  images: readonly ImageContent[] | undefined,
): string | (TextContent | ImageContent)[] {
  if (!images || images.length === 0) return text;
  // An empty text block is refused by Anthropic's API.
  return [...(text ? [{ type: "text" as const, text }] : []), ...images];
}

/** A stored task turn's text (its images left out). */
export function taskText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((block): block is TextContent => block?.type === "text" && typeof block.text === "string")
    .map((block) => block.text)
    .join("");
}
