// How close the token heuristic (src/core/tokens.ts) comes to a real tokenizer, and how fast
// it is. The corpus is what any checkout has: Markdown prose (the repo, ../shared, package
// READMEs), Chinese (the seeds, localized READMEs, TypeScript's zh-cn/zh-tw messages),
// Japanese and Korean (TypeScript's messages), other scripts (TypeScript's European
// messages), source code (src, test, packages), tool output (git history and diffs, CSV,
// system logs), source maps (encoded data: base64 VLQ, minified names) and JSON (package
// manifests, schemas); Vim's tutors in /usr/share/vim join where the machine has them.
// Files are cut into 2–8 KB pieces at line ends. A category of many files alternates files
// between a training half (the one the weights were fitted on) and a held-out half; one of
// few files alternates chunks instead. Both halves are reported. The reference is o200k
// (gpt-tokenizer), and seed 001's chars/3.5 rule is shown beside it.
//   npm run build && node bench/token-estimate.mjs [--fit] [--max-chunks 300]
//   --fit  refits the weights on the training half and prints them, for TOKEN_WEIGHTS
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";

const ROOT = resolve(import.meta.dirname, "..");
const SHARED = process.env.RESON_SHARED ?? resolve(ROOT, "../shared");
const MODULES = join(ROOT, "node_modules");
const TOKENS = join(ROOT, "dist/core/tokens.js");
if (!existsSync(TOKENS)) {
  console.error("dist/core/tokens.js is missing: run `npm run build` first.");
  process.exit(1);
}
const { estimateTokens, countTokenFeatures, TOKEN_FEATURES, TOKEN_WEIGHTS } = await import(TOKENS);

const FIT = process.argv.includes("--fit");
const argAt = process.argv.indexOf("--max-chunks");
const MAX_CHUNKS = argAt > 0 ? Number(process.argv[argAt + 1]) : 300;
const MAX_CHUNKS_PER_FILE = 8;
const SMALL_CATEGORY_CHUNKS_PER_FILE = 40;

// ---- corpus ---------------------------------------------------------------------------

/** Files under `dir` (sorted, deterministic) whose name passes `keep`. */
function walk(dir, keep, out = [], depth = 0) {
  if (!existsSync(dir) || depth > 8) return out;
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== ".bin" && entry.name !== ".cache" && entry.name !== ".git")
        walk(path, keep, out, depth + 1);
    } else if (entry.isFile() && keep(entry.name, path)) out.push(path);
  }
  return out;
}

const existing = (paths) => paths.filter((p) => existsSync(p));
const read = (path) => readFileSync(path, "utf8").replace(/^\uFEFF/, "");
const CJK = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/;
/** The message texts of one of TypeScript's localized diagnostic tables, one per line. */
const messages = (lang) => {
  const path = join(MODULES, "typescript/lib", lang, "diagnosticMessages.generated.json");
  return existsSync(path) ? [{ path, text: Object.values(JSON.parse(read(path))).join("\n") }] : [];
};
const vimTutor = (lang) => existing([`/usr/share/vim/vim90/tutor/tutor.${lang}.utf-8`]);
function gitOutput(args) {
  try {
    const text = execFileSync("git", args, { cwd: ROOT, encoding: "utf8", maxBuffer: 64 << 20 });
    return [{ path: `git ${args.join(" ")}`, text }];
  } catch {
    return [];
  }
}
const asSources = (paths) => paths.map((path) => ({ path, text: read(path) }));

const readmes = walk(MODULES, (name) => /^readme\.md$/i.test(name));
const sources = {
  english: asSources([
    ...existing([join(ROOT, "README.md"), join(SHARED, "DESIGN.md"), join(SHARED, "STYLE.md")]),
    ...walk(join(SHARED, "notes"), (n) => n.endsWith(".md")),
    ...walk(join(SHARED, "bench"), (n) => n.endsWith(".md"), [], 6).filter(
      (p) => !p.includes("node_modules"),
    ),
    ...readmes.filter((p) => !CJK.test(read(p))),
  ]),
  chinese: [
    ...asSources(walk(join(SHARED, "seeds"), (n) => n.endsWith(".txt"))),
    ...asSources(walk(MODULES, (n) => /^readme\.zh/i.test(n))),
    ...messages("zh-cn"),
    ...messages("zh-tw"),
    ...asSources([...vimTutor("zh_cn"), ...vimTutor("zh_tw")]),
  ],
  japanese: [...messages("ja"), ...asSources(vimTutor("ja"))],
  korean: [...messages("ko"), ...asSources(vimTutor("ko"))],
  "other scripts": [
    ...["ru", "de", "fr", "pl", "cs", "tr"].flatMap(messages),
    ...asSources(["ru", "el", "uk", "vi"].flatMap(vimTutor)),
  ],
  code: asSources([
    ...walk(join(ROOT, "src"), (n) => n.endsWith(".ts")),
    ...walk(join(ROOT, "test"), (n) => n.endsWith(".ts")),
    ...walk(MODULES, (n) => /\.(m|c)?[jt]s$/.test(n) && !n.endsWith(".min.js")).filter(
      (p) => statSync(p).size > 3000,
    ),
  ]),
  // What commands print: git history with hashes and diffs, CSV results, system logs.
  "tool output": [
    ...gitOutput(["log", "--stat", "-n", "300"]),
    ...gitOutput(["log", "-p", "-n", "40"]),
    ...asSources(walk(join(SHARED, "bench"), (n) => n.endsWith(".csv"), [], 6)),
    ...asSources(existing(["/var/log/dpkg.log", "/var/log/apt/term.log", "/var/log/apt/history.log"])),
    ...asSources(existing(["/var/log/alternatives.log"])),
  ],
  // Source maps: base64 VLQ mappings and identifier lists, the shape of encoded data
  // (hashes, base64, minified names) that tool outputs carry.
  encoded: asSources(walk(MODULES, (n) => n.endsWith(".js.map")).filter((p) => statSync(p).size > 3000)),
  json: asSources([
    ...existing([join(ROOT, "package.json"), join(ROOT, "tsconfig.json"), join(ROOT, "biome.json")]),
    ...walk(MODULES, (n) => n.endsWith(".json") && !n.startsWith("diagnosticMessages")).filter(
      (p) => statSync(p).size > 1000,
    ),
  ]),
};

// Deterministic pseudo-random sizes and sampling (mulberry32).
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Cuts `text` into 2–8 KB pieces at line ends (very long lines are cut anywhere). */
function chunk(text, random) {
  const pieces = [];
  let current = "";
  let bytes = 0;
  let target = 2048 + random() * 6144;
  const flush = () => {
    if (current.trim().length > 0) pieces.push(current);
    current = "";
    bytes = 0;
    target = 2048 + random() * 6144;
  };
  for (const line of text.split(/(?<=\n)/)) {
    let rest = line;
    while (rest.length > 0) {
      const room = Math.max(1, Math.floor((target - bytes) / 3));
      const take = Buffer.byteLength(rest) + bytes <= target ? rest : rest.slice(0, room);
      current += take;
      bytes += Buffer.byteLength(take);
      rest = rest.slice(take.length);
      if (bytes >= target) flush();
    }
  }
  if (bytes >= 1024) flush();
  return pieces;
}

/**
 * Chunks of one category, split into a training and a held-out half: by alternate files
 * where the category has many, else by alternate chunks of each file (a category of a few
 * files, split by file, would train on one language variant and test on another).
 */
function buildCategory(name, files) {
  const random = rng(0x5eed ^ name.length);
  const byFile = files.length >= 12;
  const halves = { train: [], heldOut: [] };
  files.forEach((file, fileIndex) => {
    const all = chunk(file.text, random);
    const sides = byFile
      ? { [fileIndex % 2 === 0 ? "train" : "heldOut"]: all }
      : { train: all.filter((_, i) => i % 2 === 0), heldOut: all.filter((_, i) => i % 2 === 1) };
    for (const [half, pieces] of Object.entries(sides)) {
      // Spread the pieces taken from a long file over its length.
      const cap = byFile ? MAX_CHUNKS_PER_FILE : SMALL_CATEGORY_CHUNKS_PER_FILE;
      const step = Math.max(1, pieces.length / cap);
      for (let at = 0; at < pieces.length; at += step)
        halves[half].push({ file: file.path, text: pieces[Math.floor(at)] });
    }
  });
  // Sample evenly across files down to MAX_CHUNKS / 2 per half.
  for (const half of ["train", "heldOut"]) {
    const keep = Math.max(1, Math.ceil(halves[half].length / (MAX_CHUNKS / 2)));
    halves[half] = halves[half].filter((_, i) => i % keep === 0);
  }
  return { name, files: files.length, split: byFile ? "files" : "chunks", ...halves };
}

// Special-token spellings (gpt-tokenizer's own sources hold them) count as plain text.
const o200k = (text) => countTokens(text, { disallowedSpecial: new Set() });

const started = performance.now();
const categories = Object.entries(sources).map(([name, files]) => buildCategory(name, files));
for (const category of categories)
  for (const piece of [...category.train, ...category.heldOut]) {
    piece.tokens = o200k(piece.text);
    piece.features = Float64Array.from(countTokenFeatures(piece.text));
  }
const prepSeconds = (performance.now() - started) / 1000;

// ---- error -----------------------------------------------------------------------------

const estimateWith = (weights) => (piece) => {
  let sum = 0;
  for (let f = 0; f < weights.length; f++) sum += weights[f] * piece.features[f];
  return Math.max(1, Math.round(sum));
};
const shipped = (piece) => estimateTokens(piece.text);

function errors(pieces, estimate) {
  return pieces.map((p) => (estimate(p) - p.tokens) / p.tokens);
}
function summary(errs) {
  if (errs.length === 0) return { n: 0, mae: Number.NaN, p90: Number.NaN, bias: Number.NaN };
  const abs = errs.map(Math.abs).sort((a, b) => a - b);
  const mae = abs.reduce((s, e) => s + e, 0) / abs.length;
  const p90 = abs[Math.min(abs.length - 1, Math.floor(abs.length * 0.9))];
  const bias = errs.reduce((s, e) => s + e, 0) / errs.length;
  return { n: errs.length, mae, p90, bias };
}
const pct = (x) => (Number.isNaN(x) ? "–" : `${(x * 100).toFixed(1)}%`);
const signed = (x) => (Number.isNaN(x) ? "–" : `${x >= 0 ? "+" : ""}${(x * 100).toFixed(1)}%`);

function report(title, estimate) {
  console.log(`\n### ${title}\n`);
  console.log(
    "| category | files (split by) | chunks train/held-out | MAE train | MAE held-out | p90 held-out | bias held-out |",
  );
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
  const allTrain = [];
  const allHeld = [];
  for (const c of categories) {
    const train = summary(errors(c.train, estimate));
    const held = summary(errors(c.heldOut, estimate));
    allTrain.push(...errors(c.train, estimate));
    allHeld.push(...errors(c.heldOut, estimate));
    console.log(
      `| ${c.name} | ${c.files} (${c.split}) | ${train.n}/${held.n} | ${pct(train.mae)} | ${pct(held.mae)} | ${pct(held.p90)} | ${signed(held.bias)} |`,
    );
  }
  const train = summary(allTrain);
  const held = summary(allHeld);
  console.log(
    `| **all** | | ${train.n}/${held.n} | ${pct(train.mae)} | ${pct(held.mae)} | ${pct(held.p90)} | ${signed(held.bias)} |`,
  );
}

// ---- fit (weighted least absolute relative error, non-negative weights) ----------------

/** Minimises ½wᵀAw − bᵀw over w ≥ 0 by projected coordinate descent. */
function nonNegativeQuadratic(A, b, start) {
  const w = Float64Array.from(start);
  const d = b.length;
  for (let sweep = 0; sweep < 2000; sweep++) {
    let moved = 0;
    for (let j = 0; j < d; j++) {
      if (A[j][j] <= 1e-12) continue;
      let g = -b[j];
      for (let k = 0; k < d; k++) g += A[j][k] * w[k];
      const next = Math.max(0, w[j] - g / A[j][j]);
      moved = Math.max(moved, Math.abs(next - w[j]));
      w[j] = next;
    }
    if (moved < 1e-9) break;
  }
  return w;
}

function fitWeights(pieces) {
  const d = TOKEN_FEATURES.length;
  // Each category weighs the same, whatever its number of chunks.
  const perCategory = new Map();
  for (const p of pieces) perCategory.set(p.category, (perCategory.get(p.category) ?? 0) + 1);
  // A feature seen too rarely to fit keeps its shipped weight (emoji, rare ideographs…).
  const totals = new Float64Array(d);
  for (const p of pieces) for (let f = 0; f < d; f++) totals[f] += p.features[f];
  const held = Array.from(totals, (t) => t < 200);
  let w = Float64Array.from(TOKEN_WEIGHTS);
  for (let round = 0; round < 40; round++) {
    const A = Array.from({ length: d }, () => new Float64Array(d));
    const b = new Float64Array(d);
    for (const p of pieces) {
      let est = 0;
      for (let f = 0; f < d; f++) est += w[f] * p.features[f];
      const rel = Math.abs(est - p.tokens) / p.tokens;
      // IRLS for L1 on relative error: weight 1/(t²·|r|), floored so exact fits stay bounded.
      const weight = 1 / (perCategory.get(p.category) * p.tokens * p.tokens * Math.max(rel, 0.01));
      for (let j = 0; j < d; j++) {
        const xj = p.features[j];
        if (xj === 0) continue;
        b[j] += weight * xj * p.tokens;
        for (let k = 0; k < d; k++) A[j][k] += weight * xj * p.features[k];
      }
    }
    // A little ridge keeps features that barely occur from taking wild values.
    for (let j = 0; j < d; j++) A[j][j] += 1e-9 * (A[j][j] + 1);
    for (let j = 0; j < d; j++) {
      if (!held[j]) continue;
      for (let k = 0; k < d; k++) {
        b[k] -= A[k][j] * TOKEN_WEIGHTS[j];
        A[k][j] = 0;
        A[j][k] = 0;
      }
      b[j] = 0;
    }
    w = nonNegativeQuadratic(A, b, w);
    for (let j = 0; j < d; j++) if (held[j]) w[j] = TOKEN_WEIGHTS[j];
  }
  return Array.from(w, (x) => Math.round(x * 1000) / 1000);
}

// ---- speed -----------------------------------------------------------------------------

function speed(fn, texts) {
  const bytes = texts.reduce((s, t) => s + Buffer.byteLength(t), 0);
  const chars = texts.reduce((s, t) => s + t.length, 0);
  let sink = 0;
  for (const t of texts) sink += fn(t); // warm-up
  let rounds = 0;
  const start = performance.now();
  while (performance.now() - start < 1000) {
    for (const t of texts) sink += fn(t);
    rounds++;
  }
  const seconds = (performance.now() - start) / 1000;
  return {
    mbPerSecond: (bytes * rounds) / seconds / 1e6,
    nsPerChar: (seconds * 1e9) / (chars * rounds),
    sink,
  };
}

// ---- output ----------------------------------------------------------------------------

const allPieces = categories.flatMap((c) => [...c.train, ...c.heldOut]);
const totalBytes = allPieces.reduce((s, p) => s + Buffer.byteLength(p.text), 0);
console.log(
  `Token estimate vs o200k: ${allPieces.length} chunks, ${(totalBytes / 1e6).toFixed(2)} MB (prepared in ${prepSeconds.toFixed(1)} s).`,
);
console.log(
  "MAE = mean absolute relative error per chunk; p90 = its 90th percentile; bias = mean signed error.",
);
report("estimateTokens (shipped weights)", shipped);

// Seed 001's ADR-2 rule, for comparison: 3.5 characters a token, 2.5 for CJK.
const CJK_ALL = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]/g;
report("seed 001 rule: chars/3.5, CJK chars/2.5 (for comparison)", (piece) => {
  const cjk = piece.text.match(CJK_ALL)?.length ?? 0;
  return Math.round((piece.text.length - cjk) / 3.5 + cjk / 2.5);
});

if (FIT) {
  const train = categories.flatMap((c) => c.train.map((p) => ({ ...p, category: c.name })));
  const weights = fitWeights(train);
  report("refitted on the training half (not shipped)", estimateWith(weights));
  console.log("\nTOKEN_WEIGHTS:");
  console.log(TOKEN_FEATURES.map((name, i) => `  ${name}: ${weights[i]}`).join("\n"));
  console.log(`[${weights.join(", ")}]`);
}

const texts = allPieces.map((p) => p.text);
const ours = speed(estimateTokens, texts);
const reference = speed(o200k, texts.slice(0, 200));
console.log(
  `\nSpeed: estimateTokens ${ours.mbPerSecond.toFixed(0)} MB/s (${ours.nsPerChar.toFixed(2)} ns/char); ` +
    `o200k countTokens ${reference.mbPerSecond.toFixed(1)} MB/s, on this machine.`,
);
console.log(
  `Files: ${categories.map((c) => `${c.name} ${c.files}`).join(", ")}; sources under ${relative(ROOT, SHARED) || "."}, node_modules${existsSync("/usr/share/vim") ? ", /usr/share/vim" : ""}.`,
);
