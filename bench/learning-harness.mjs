// What the learning benchmarks share: the scripted fake model server of test/support (bundled
// once into a scratch folder), `reson run` as a fresh process against it, and a project (its own
// home and workspace) to teach and probe in. Each benchmark sets the server's responder.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { build } from "esbuild";

export const ROOT = resolve(import.meta.dirname, "..");
export const REFLECTION_MARK = "keep a short list of reusable rules";
/** A lesson as the context shows it (section.ts): its id. */
export const LESSON_ID = /^- \[([0-9A-Z]{26})\] When /gm;

export function textOf(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => part.text ?? "").join("");
  return "";
}

export const isReflection = (request) => JSON.stringify(request.body ?? "").includes(REFLECTION_MARK);
export const messagesOf = (request) => request.body?.messages ?? [];
export const systemOf = (request) => textOf(messagesOf(request).find((m) => m.role === "system")?.content);
export const taskOf = (request) => textOf(messagesOf(request).find((m) => m.role === "user")?.content);

export function cleanEnv(extra) {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/API_KEY|TOKEN|SECRET|^RESON_|^OLLAMA_|^OPENAI_|^ANTHROPIC_/i.test(key)) continue;
    env[key] = value;
  }
  return { ...env, OLLAMA_HOST: "127.0.0.1:9", NO_COLOR: "1", ...extra };
}

export function runCli(cli, cliArgs, { cwd, env }) {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [cli, ...cliArgs], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("error", fail);
    child.on("close", (code) => done({ code, stdout, stderr }));
  });
}

/**
 * The fake server, started, and projects to run reson in. `cli`: the reson.js to run;
 * `languages`: memory.languages for every project; `embeddings`: { url, model } of a real
 * embedding model for projects made with `model: true`.
 */
export async function startHarness({ cli, name = "learning", languages, embeddings } = {}) {
  const scratch = mkdtempSync(join(tmpdir(), `reson-${name}-bench-`));
  // The fake server is TypeScript; bundled once into the scratch folder.
  await build({
    entryPoints: [join(ROOT, "test/support/fake-model-server.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    outfile: join(scratch, "fake-model-server.mjs"),
    logLevel: "error",
  });
  const { startFakeModelServer } = await import(join(scratch, "fake-model-server.mjs"));
  const server = await startFakeModelServer();

  /** A project: its own home and workspace, and how to run reson in it. */
  function project(projectName, { minEvidence, vectors, model }) {
    const home = join(scratch, `${projectName}-home`);
    const ws = join(scratch, `${projectName}-ws`);
    mkdirSync(home, { recursive: true });
    mkdirSync(join(ws, "notes"), { recursive: true });
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({ memory: { minEvidence, ...(languages ? { languages } : {}) } }),
    );
    const env = cleanEnv({
      RESON_HOME: home,
      RESON_MEMORY_REFLECT: "auto",
      // Every matching rule shown: the benchmark measures retrieval, not the holdout.
      RESON_MEMORY_HOLDOUT: "0",
      ...(vectors
        ? {
            RESON_EMBEDDINGS_PROVIDER: "openai-compatible",
            RESON_EMBEDDINGS_BASE_URL: server.openaiBaseUrl,
            RESON_EMBEDDINGS_MODEL: "fake-embed",
          }
        : {}),
      ...(model
        ? {
            RESON_EMBEDDINGS_PROVIDER: "openai-compatible",
            RESON_EMBEDDINGS_BASE_URL: embeddings.url,
            RESON_EMBEDDINGS_MODEL: embeddings.model,
          }
        : {}),
    });
    const run = (cliArgs) => runCli(cli, cliArgs, { cwd: ws, env });
    return {
      home,
      ws,
      cli: run,
      /** `reson run` of `task`; the lessons in its first model call, and the requests it made. */
      async run(task) {
        const before = server.requests.length;
        const result = await run([
          "run",
          "--json",
          "--provider",
          "openai-compatible",
          "--base-url",
          server.openaiBaseUrl,
          "--model",
          "fake",
          task,
        ]);
        if (result.code !== 0) throw new Error(`reson run ${JSON.stringify(task)} failed: ${result.stderr}`);
        const requests = server.requests.slice(before).filter((r) => r.protocol === "openai");
        const first = requests.find((r) => !isReflection(r));
        return { lessons: [...systemOf(first).matchAll(LESSON_ID)].map((m) => m[1]), result, requests };
      },
      async experiences() {
        const out = await run(["experiences", "list", "--json"]);
        return out.stdout
          .split("\n")
          .filter(Boolean)
          .map((line) => JSON.parse(line));
      },
    };
  }

  return {
    scratch,
    server,
    project,
    async close() {
      await server.close();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
