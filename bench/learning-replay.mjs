// A quick replay of the learning benchmark's retrieval, in process, for tuning: the families of
// a set are stored as the rules a careful reflection would write (keys in English and Chinese,
// and the rewordings the prompt asks for), then each probe and unrelated task is matched as a
// run's would be (matchingExperiences, 4 at most). No CLI, no model server, no promotion:
// seconds instead of minutes, and close to, not the same as, learning.mjs (which also lets
// the first teaching runs see only the languages the project has shown so far). The sources
// are bundled into dist/replay-bench/ so the build's word tables are found as in dist/store.
//   node bench/learning-replay.mjs [--set tuned|heldout|heldout2|heldout3|heldout4|heldout5|heldout6] [--cases] [--explain]
//     [--crowd N]
// --crowd N: N synthetic rules (learning-rules.mjs) in the project beside the families.
// --embeddings-url URL [--embeddings-model NAME]: vectors from an OpenAI-compatible server
// (e.g. bench/local-embeddings-server.mjs) through reson's own embeddings provider, cached in the
// store as in a run; without it, full text alone. --explain then also prints z.
// heldout2 to heldout5 have been looked at since their runs, so they are tuned on now;
// heldout6 is for the end of a round, after its run through learning.mjs, not for tuning.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { build } from "esbuild";
import { missesOf, retrievalTable } from "./learning-report.mjs";
import { synthesiseRules } from "./learning-rules.mjs";
import { LEARNING_SETS } from "./learning-sets.mjs";

const ROOT = resolve(import.meta.dirname, "..");
const args = process.argv.slice(2);
const setName = args.includes("--set") ? args[args.indexOf("--set") + 1] : "tuned";
const SET = LEARNING_SETS[setName];
if (!SET)
  throw new Error(
    `Unknown set ${setName}: tuned, heldout, heldout2, heldout3, heldout4, heldout5 or heldout6`,
  );

const outfile = join(ROOT, "dist/replay-bench/retrieval.mjs");
await build({
  stdin: {
    contents:
      'export { openStore } from "./src/store/index.ts"; export { matchingExperiences, scoreExperiences, weightedTerms } from "./src/memory/index.ts"; export { createEmbeddingProvider, cachedEmbedder, InMemoryEmbeddingCache } from "./src/providers/index.ts";',
    resolveDir: ROOT,
    loader: "ts",
  },
  bundle: true,
  platform: "node",
  format: "esm",
  packages: "external",
  outfile,
  logLevel: "error",
});
const {
  openStore,
  matchingExperiences,
  scoreExperiences,
  weightedTerms,
  createEmbeddingProvider,
  cachedEmbedder,
  InMemoryEmbeddingCache,
} = await import(outfile);
const embeddingsUrl = args.includes("--embeddings-url")
  ? args[args.indexOf("--embeddings-url") + 1]
  : undefined;
const embedder = embeddingsUrl
  ? cachedEmbedder(
      createEmbeddingProvider({
        provider: "openai-compatible",
        baseUrl: embeddingsUrl,
        model: args.includes("--embeddings-model") ? args[args.indexOf("--embeddings-model") + 1] : "local",
      }),
      new InMemoryEmbeddingCache(),
      { redact: (text) => text },
    )
  : undefined;

const home = mkdtempSync(join(tmpdir(), "reson-replay-"));
const store = await openStore({ home });
const projectKey = "replay".padEnd(64, "0");
const now = Date.now();
const familyOf = new Map();
for (const [i, family] of SET.taught.entries()) {
  const id = `01KREPLAY${String(i).padStart(17, "0")}`;
  familyOf.set(id, family.id);
  await store.apply([
    {
      op: "insertExperience",
      experience: {
        id,
        projectKey,
        scope: "project:replay",
        condition: family.condition,
        rule: family.rule,
        keys: [...family.keys, ...(family.otherKeys ?? []), ...(family.asks ?? [])],
        conditionFilter: null,
        evidence: [{ traceId: id, outcome: "success", note: "replay", at: now }],
        confidence: 0.5,
        usageCount: 0,
        successCount: 0,
        failureCount: 0,
        holdoutSuccessCount: 0,
        holdoutFailureCount: 0,
        votes: 1,
        provenance: "agent",
        status: "active",
        createdAt: now - i,
        updatedAt: now - i,
        lastUsedAt: null,
      },
    },
  ]);
}
const crowd = args.includes("--crowd") ? Number(args[args.indexOf("--crowd") + 1]) : 0;
const synthetic = synthesiseRules(crowd, projectKey);
for (let i = 0; i < synthetic.length; i += 500) {
  await store.apply(
    synthetic.slice(i, i + 500).map((experience) => ({ op: "insertExperience", experience })),
  );
}
const deps = { store, projectKey, redact: (text) => text, ...(embedder ? { embedder } : {}) };
const explain = args.includes("--explain");
const lessonsOf = async (task) => {
  if (explain) {
    const weights = new Map(weightedTerms(task).map((t) => [t.term, t.weight.toFixed(2)]));
    const top = (await scoreExperiences(deps, task, ["active"])).slice(0, 2);
    for (const hit of top)
      console.log(
        `  ${hit.match.toFixed(2)} z ${hit.z.toFixed(1)} ${familyOf.get(hit.experience.id)} [${hit.matched.map((t) => `${t}:${weights.get(t)}`).join(" ")}] <- ${task}`,
      );
  }
  return (await matchingExperiences(deps, task, 4)).map((hit) => familyOf.get(hit.experience.id) ?? "?");
};
const rows = [];
for (const family of SET.probed) {
  for (const probe of family.probes) {
    const lessons = await lessonsOf(probe.task);
    rows.push({
      ...probe,
      family: family.id,
      hit: lessons.includes(family.id),
      wrong: lessons.some((f) => f !== family.id),
      lessons,
    });
  }
}
const unrelated = [];
for (const item of SET.unrelated) {
  const lessons = await lessonsOf(item.task);
  unrelated.push({ ...item, injected: lessons.length > 0, lessons });
}
await store.close();
rmSync(home, { recursive: true, force: true });
const result = { mode: `replay ${setName}${embedder ? " + model vectors" : ""}`, rows, unrelated };
console.log(retrievalTable([result]));
if (args.includes("--cases")) console.log(`\n${missesOf(result)}`);
