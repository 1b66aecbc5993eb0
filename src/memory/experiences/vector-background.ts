// The fixed background a vector hit is measured against: texts of tasks unrelated to each other
// and to any one project, in English and Chinese, embedded once per embedding model (the
// embedder's cache keeps them in the store). What a cosine means differs by model (unrelated
// texts score 0.1 under one and 0.7 under another); how far a rule rises above these texts for
// the same task does not, and it can be told with the project's first rule, not only once it
// has many.
import type { EmbeddingProvider } from "../../providers/index.js";

export const BACKGROUND_TEXTS: readonly string[] = [
  "Write a limerick about a cat who likes jazz",
  "What is the capital of Australia?",
  "Convert 72 degrees Fahrenheit to Celsius",
  "Suggest a weekend itinerary for Lisbon",
  "Recommend three novels about the sea",
  "Draft a thank-you note to a colleague",
  "Summarise the causes of the French Revolution",
  "How many minutes are there in a week?",
  "Give me ideas for a child's birthday party",
  "Write a recipe for lemon pancakes",
  "Explain how a mortgage is paid off",
  "Which planet has the most moons?",
  "Rename the variable tmp to buffer in this snippet",
  "Add a tooltip to the save icon",
  "Format this table of prices as Markdown",
  "Write a function that counts the vowels in a word",
  "Change the heading font to a serif one",
  "Add alt text to the images on the about page",
  "Draw a flowchart of a morning routine",
  "Center the logo in the navigation bar",
  "写一首关于春天的短诗",
  "澳大利亚的首都是哪里？",
  "把华氏七十二度换算成摄氏度",
  "推荐一个周末去苏州的行程",
  "写一张感谢同事的便条",
  "简单介绍一下唐朝的历史",
  "一周有多少分钟？",
  "给孩子的生日聚会出几个点子",
  "写一个柠檬松饼的做法",
  "把关于我们页面的图片加上说明文字",
  "把导航栏里的标志居中",
  "写一个统计单词里元音个数的函数",
];

/** Background vectors by embedding model id, in this process (the store caches them across processes). */
const embedded = new Map<string, Promise<Float32Array[]>>();

/** The background's vectors under `embedder`'s model. */
export function backgroundVectors(
  embedder: EmbeddingProvider,
  signal?: AbortSignal,
): Promise<Float32Array[]> {
  const known = embedded.get(embedder.id);
  if (known) return known;
  const vectors = embedder.embed([...BACKGROUND_TEXTS], signal ? { signal } : {});
  embedded.set(embedder.id, vectors);
  // A failed embedding is not remembered: the next search asks again.
  vectors.catch(() => embedded.delete(embedder.id));
  return vectors;
}

/** Cosine similarity of two vectors (of any length; 0 when either is zero). */
export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
