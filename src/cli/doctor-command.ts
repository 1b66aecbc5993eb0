// `reson doctor`: what this machine guarantees, checked by trying rather than assumed: the OS
// sandbox for commands (by running one), the configuration files, the secrets file (mode and
// shape, never values), the store and how it searches memory vectors, the tools reson uses and
// the plugins (by loading them). Each problem comes with what to do about it. Exit 0 when every
// guarantee holds, 1 when one does not, so scripts and CI can gate on it.

import { join } from "node:path";
import { openDefaultStore } from "../agent/index.js";
import { findChromium, playwrightBuild, skewWarning } from "../browser/index.js";
import { type LoadedConfig, resonHome } from "../config/index.js";
import { toResonError } from "../core/errors.js";
import { INSTALL, installLine } from "../core/install-hints.js";
import { printable } from "../core/printable-text.js";
import {
  AUTO_DETECT_ORDER,
  embeddingModelId,
  PROVIDER_CATALOG,
  resolveEmbeddingSettings,
} from "../providers/index.js";
import { SecretVault } from "../secrets/index.js";
import type { Store } from "../store/index.js";
import { probeSandbox, protectedTargets, type SandboxStatus, Workspace } from "../workspace/index.js";
import { parseCommandArgs } from "./command-args.js";
import type { Check, CheckState } from "./doctor-check.js";
import { configCheck, notCheckedWithoutConfig } from "./doctor-config.js";
import { pluginChecks } from "./doctor-plugins.js";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE } from "./exit-codes.js";
import { reportError } from "./run-command.js";
import { workspaceFolderArg } from "./workspace-choice.js";

interface DoctorReport {
  workspace: string;
  home: string;
  sandbox: { level: string; summary: string; facts: SandboxStatus["facts"] };
  checks: Check[];
  ok: boolean;
}

const MARK: Record<CheckState, string> = { ok: "ok  ", warn: "warn", fail: "FAIL" };

function sandboxChecks(status: SandboxStatus): Check[] {
  const facts = status.facts;
  const checks: Check[] = [];
  const push = (state: CheckState, detail: string, fix?: string) =>
    checks.push({ area: "sandbox", state, detail, ...(fix ? { fix } : {}) });
  if (facts.bwrapPath) push("ok", `bubblewrap ${facts.bwrapVersion ?? "?"} at ${facts.bwrapPath}`);
  push(
    facts.userNamespaces ? "ok" : "fail",
    facts.userNamespaces ? "user namespaces work" : "user namespaces do not work",
  );
  push(
    facts.seccomp ? "ok" : "fail",
    facts.seccomp
      ? `seccomp filter loads (${facts.arch}): no Unix-socket connects, mounts, new namespaces, ptrace`
      : "the seccomp filter does not load",
  );
  if (facts.disableUserns) push("ok", "nested user namespaces blocked (--disable-userns)");
  push(
    facts.pidsLimit === "unavailable" ? "warn" : "ok",
    facts.pidsLimit === "unavailable"
      ? "process limit unavailable (root without a writable cgroup): fork bombs are not contained"
      : `process limit via ${facts.pidsLimit === "cgroup" ? `cgroup ${facts.cgroup}` : "prlimit"}`,
    facts.pidsLimit === "unavailable"
      ? "Run reson as a normal user, or give it a writable cgroup."
      : undefined,
  );
  push(
    facts.memoryLimit === "unavailable" ? "warn" : "ok",
    facts.memoryLimit === "unavailable"
      ? "memory limit unavailable (no writable cgroup)"
      : `memory limit via cgroup ${facts.cgroup}`,
  );
  push("ok", `Landlock: ${facts.landlock}`);
  for (const problem of status.problems) push("fail", problem.what, problem.fix);
  return checks;
}

async function secretsCheck(home: string): Promise<Check> {
  const path = join(home, "secrets.json");
  try {
    const vault = await SecretVault.load(path);
    const names = vault.names();
    if (names.length === 0)
      return {
        area: "secrets",
        state: "ok",
        detail: `no secrets configured (${path})`,
      };
    const warn = vault.warnings.length > 0;
    return {
      area: "secrets",
      state: warn ? "warn" : "ok",
      detail: `${names.length} secret${names.length === 1 ? "" : "s"} in ${path}: ${names.map((n) => n.name).join(", ")}${warn ? `; ${vault.warnings.join("; ")}` : ""}`,
    };
  } catch (error) {
    const failure = toResonError(error);
    return {
      area: "secrets",
      state: "fail",
      detail: failure.message,
      ...(failure.hint ? { fix: failure.hint } : {}),
    };
  }
}

const PGVECTOR_FIX =
  "Install pgvector on the server (the postgresql-NN-pgvector package of your distribution or of the PGDG apt repository, or the pgvector/pgvector container image); reson enables it (CREATE EXTENSION vector) at its next open, or a superuser can.";

/** How memory vectors are searched on this store: what the store reports, in words. */
function vectorCheck(store: Store): Check {
  const mode = store.features?.vectorSearch ?? "in-process";
  if (mode === "pgvector-hnsw") {
    return {
      area: "store",
      state: "ok",
      detail: "memory vector search: pgvector-hnsw (an HNSW index per embedding model, cosine)",
    };
  }
  if (mode === "sqlite-vec")
    return { area: "store", state: "ok", detail: "memory vector search: sqlite-vec (exact)" };
  const why = store.kind === "postgres" ? "the server has no pgvector" : "sqlite-vec did not load";
  return {
    area: "store",
    state: "warn",
    detail: `memory vector search: in-process (exact, in reson's memory: ${why})`,
    ...(store.kind === "postgres" ? { fix: PGVECTOR_FIX } : {}),
  };
}

async function storeChecks(home: string): Promise<Check[]> {
  const where = process.env.RESON_DATABASE_URL?.trim()
    ? "PostgreSQL (RESON_DATABASE_URL)"
    : join(home, "reson.db");
  try {
    const store = await openDefaultStore(home);
    const vectors = vectorCheck(store);
    await store.close();
    return [{ area: "store", state: "ok", detail: `opens: ${where}` }, vectors];
  } catch (error) {
    const failure = toResonError(error);
    return [
      {
        area: "store",
        state: "fail",
        detail: `${where}: ${failure.message}`,
        ...(failure.hint ? { fix: failure.hint } : {}),
      },
    ];
  }
}

function binaryCheck(name: string, args: string[], missing: Omit<Check, "area" | "detail">): Check {
  const run = process
    .getBuiltinModule("node:child_process")
    .spawnSync(name, args, { encoding: "utf8", timeout: 5_000 });
  if (run.status === 0) {
    const line = (run.stdout || run.stderr).split("\n", 1)[0]?.trim() ?? name;
    return { area: "tools", state: "ok", detail: line };
  }
  return { area: "tools", detail: `${name} not found`, ...missing };
}

/** The browser tools' Chromium: found, its version, and its distance from playwright-core's build. */
function browserCheck(loaded: LoadedConfig | undefined): Check {
  const area = "browser";
  if (!loaded) return notCheckedWithoutConfig(area);
  const { browser } = loaded.config;
  if (!browser.enabled) return { area, state: "ok", detail: "browser tools are off (browser.enabled)" };
  const build = playwrightBuild();
  const path = findChromium(browser.executablePath);
  if (!path)
    return {
      area,
      state: "warn",
      detail: "no Chromium or Chrome found: the browser tools will fail",
      fix: `Install one (${INSTALL.chromium}) or set browser.executablePath in the config.`,
    };
  const run = process
    .getBuiltinModule("node:child_process")
    .spawnSync(path, ["--version"], { encoding: "utf8", timeout: 10_000 });
  const version = /\d+\.\d+\.\d+\.\d+/.exec(`${run.stdout ?? ""}`)?.[0];
  if (!version)
    return {
      area,
      state: "warn",
      detail: `${path} did not report a version`,
      fix: `Check that it runs (\`${path} --version\`), or set browser.executablePath to another Chromium.`,
    };
  const skew = skewWarning(version);
  const detail = `Chromium ${version} at ${path}; playwright-core ${build.playwright} is built for ${build.chromium}`;
  if (skew) return { area, state: "warn", detail, fix: skew };
  return { area, state: "ok", detail };
}

function providerCheck(): Check {
  const set = AUTO_DETECT_ORDER.map((name) => PROVIDER_CATALOG[name].envKey).filter(
    (key): key is string => key !== undefined && Boolean(process.env[key]?.trim()),
  );
  if (set.length > 0) return { area: "provider", state: "ok", detail: `keys set: ${set.join(", ")}` };
  return {
    area: "provider",
    state: "warn",
    detail: "no provider key in the environment (reson will try a local Ollama)",
    fix: "Set ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, DEEPSEEK_API_KEY or OPENROUTER_API_KEY, or pass --provider.",
  };
}

/** Whether memory search has vectors, and with which model. */
function memoryCheck(loaded: LoadedConfig | undefined): Check {
  if (!loaded) return notCheckedWithoutConfig("memory");
  const { config } = loaded;
  try {
    if (!config.memory.enabled)
      return { area: "memory", state: "ok", detail: "off (memory.enabled is false)" };
    const resolved = resolveEmbeddingSettings(config, process.env);
    if (!resolved.settings) return { area: "memory", state: "ok", detail: resolved.notice };
    return {
      area: "memory",
      state: "ok",
      detail: `on; similarity search with ${embeddingModelId(resolved.settings)}; reflection ${config.memory.reflect}`,
    };
  } catch (error) {
    const failure = toResonError(error);
    return {
      area: "memory",
      state: "fail",
      detail: failure.message,
      ...(failure.hint ? { fix: failure.hint } : {}),
    };
  }
}

function render(report: DoctorReport): string {
  const lines = [
    `reson doctor: workspace ${report.workspace}, home ${report.home}`,
    "",
    report.sandbox.summary,
  ];
  let area = "";
  for (const check of report.checks) {
    if (check.area !== area) {
      area = check.area;
      lines.push("", `${area}:`);
    }
    // Details name what files and plugins say (a file name a run chose): written out, never obeyed.
    lines.push(`  ${MARK[check.state]}  ${printable(check.detail)}`);
    if (check.fix && check.state !== "ok") lines.push(`        fix: ${printable(check.fix)}`);
  }
  lines.push("", summary(report));
  return `${lines.join("\n")}\n`;
}

/** The last line: that everything holds, or which areas fail and what that means. */
function summary(report: DoctorReport): string {
  if (report.ok) return "Every guarantee above holds on this machine.";
  const failed = [...new Set(report.checks.filter((c) => c.state === "fail").map((c) => c.area))];
  const sandboxDown = report.sandbox.level !== "enforced";
  if (sandboxDown && !failed.includes("sandbox")) failed.unshift("sandbox");
  const consequences: Record<string, string> = {
    sandbox:
      "without the OS sandbox the terminal asks before every command and headless runs refuse commands unless --sandbox off is given",
    config: "runs refuse to start until the configuration loads",
    plugins: "runs leave out the plugins that fail to load",
  };
  const said = failed.flatMap((area) => (consequences[area] ? [consequences[area]] : []));
  return `Some guarantees do not hold (FAIL above: ${failed.join(", ")})${said.length > 0 ? `; ${said.join("; ")}` : ""}.`;
}

export async function doctorCommand(argv: string[]): Promise<number> {
  let values: { workspace?: string; json?: boolean };
  try {
    ({ values } = parseCommandArgs(
      {
        args: argv,
        strict: true,
        options: { workspace: { type: "string", short: "w" }, json: { type: "boolean" } },
      },
      "Usage: reson doctor [-w dir] [--json]",
    ));
  } catch (error) {
    reportError(toResonError(error, "usage_error"));
    return EXIT_USAGE;
  }
  const home = resonHome();
  let workspace: Workspace;
  try {
    workspace = await Workspace.open(await workspaceFolderArg(values.workspace));
  } catch (error) {
    reportError(toResonError(error));
    return EXIT_USAGE;
  }
  // Always bwrap again: doctor is where people look after changing something, and it
  // refreshes what runs remember (probe-cache.ts).
  const status = await probeSandbox({ force: true });
  const config = await configCheck(workspace.root);
  const checks: Check[] = [
    ...sandboxChecks(status),
    {
      area: "file tools",
      state: "ok",
      detail:
        "path sandbox in the agent: every path checked, then opened by file descriptor (no symlink races); protected " +
        "(read-only for commands; file tools ask, or never write git's folder and reson's settings): " +
        protectedTargets(workspace.policy)
          .map((target) => target.relative ?? target.path)
          .join(", "),
    },
    ...config.checks,
    await secretsCheck(home),
    ...(await storeChecks(home)),
    memoryCheck(config.loaded),
    binaryCheck("rg", ["--version"], {
      state: "warn",
      fix: `Install ripgrep for fast grep (${installLine("ripgrep")}); the built-in search is used meanwhile.`,
    }),
    binaryCheck("git", ["--version"], { state: "warn", fix: `Install git (${INSTALL.git}).` }),
    browserCheck(config.loaded),
    providerCheck(),
    ...(config.loaded ? await pluginChecks(home, workspace.root) : [notCheckedWithoutConfig("plugins")]),
  ];
  const report: DoctorReport = {
    workspace: workspace.root,
    home,
    sandbox: { level: status.level, summary: status.summary, facts: status.facts },
    checks,
    ok: status.level === "enforced" && checks.every((check) => check.state !== "fail"),
  };
  process.stdout.write(values.json ? `${JSON.stringify(report)}\n` : render(report));
  return report.ok ? EXIT_OK : EXIT_FAILED;
}
