// Which lessons a run is shown when an embedding model's vectors take part, over a real SQLite
// store and the fake model server's embeddings over HTTP (hashed words and trigrams: texts
// sharing many words, even small ones, point alike). A rule's vector lifts a half text match
// only when the rule is the task's nearest by vector and stands out from the next nearest: a
// rule that is one of several standing out from the everyday background is no evidence.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { matchingExperiences, scoreExperiences } from "../../src/memory/index.js";
import { createEmbeddingProvider } from "../../src/providers/index.js";
import { openStore, type Store } from "../../src/store/index.js";
import { experience, PROJECT } from "../store/fixtures.js";
import { type FakeModelServer, startFakeModelServer } from "../support/fake-model-server.js";

let home: string;
let store: Store;
let server: FakeModelServer;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "reson-vectors-"));
  store = await openStore({ home });
  server = await startFakeModelServer();
});
afterEach(async () => {
  await store.close();
  await server.close();
  await rm(home, { recursive: true, force: true });
});

const deps = () => ({
  store,
  projectKey: PROJECT,
  redact: (text: string) => text,
  embedder: createEmbeddingProvider({
    provider: "openai-compatible",
    baseUrl: server.openaiBaseUrl,
    model: "fake-embed",
  }),
});
const shown = async (task: string) =>
  (await matchingExperiences(deps(), task, 4)).map((hit) => hit.experience.rule);
const addRule = (condition: string, rule: string) =>
  store.experiences.insert(experience({ status: "active", condition, rule, keys: [] }));

// The task shares one content word ("widget") with the widget rules, and many small words.
const TASK = "it is not there and it is not here and it is not in the widget and the upload is gone";

describe("vectors beside a half text match", () => {
  it("lift the rule nearest by vector when it stands out from the next nearest", async () => {
    await addRule(
      "when it is not there and it is not here and it is not in the widget then it is lost",
      "check the widget cache.",
    );
    await addRule(
      "the nightly report email reaches customers twice",
      "take a lock before the report job sends.",
    );
    await addRule("the invoice mailer uses the wrong From address", "set the sender of the invoice mailer.");
    const [best] = await scoreExperiences(deps(), TASK, ["active"]);
    // One word in common: a half match, which the vector lifts to a full one.
    expect(best?.textScore).toBeLessThan(0.75);
    expect(best?.z).toBeGreaterThanOrEqual(3);
    expect(await shown(TASK)).toEqual(["check the widget cache."]);
    // Without an embedding model the same half match shows nothing.
    expect(
      (await matchingExperiences({ store, projectKey: PROJECT, redact: (t: string) => t }, TASK, 4)).length,
    ).toBe(0);
  });

  it("lift nothing when two rules stand out alike: which one the task needs is chance", async () => {
    await addRule(
      "when it is not there and it is not here and it is not in the widget then it is lost",
      "check the widget cache.",
    );
    await addRule(
      "when it is not there and it is not here and it is not in the widget then it is missing",
      "rebuild the widget index.",
    );
    await addRule(
      "the nightly report email reaches customers twice",
      "take a lock before the report job sends.",
    );
    const hits = await scoreExperiences(deps(), TASK, ["active"]);
    // Both stand far out of the background (each would be lifted on its own)...
    expect(hits.filter((hit) => hit.z >= 3 && hit.textScore >= 0.5).length).toBe(2);
    // ...but neither out of the other, so the run is shown neither.
    expect(await shown(TASK)).toEqual([]);
    // A task that names what only one of them holds still finds it by text.
    expect(await shown("the widget index is missing after the upload")).toEqual([
      "rebuild the widget index.",
    ]);
  });
});
