// What some test groups need from the machine beyond Node: bubblewrap, tmux, ripgrep, a
// PostgreSQL server, Chromium, and jq and curl (README's command blocks use them). Without one, a group is skipped locally and recorded, and the skip block
// printed after the run (skip-report.ts) names it, says why and gives the install line that
// `reson doctor` gives too. Under CI=true nothing is skipped: a missing dependency fails.
import { execFileSync } from "node:child_process";
import { appendFileSync, existsSync } from "node:fs";
import { relative } from "node:path";
import { expect } from "vitest";
import { INSTALL } from "../../src/core/install-hints.js";
import { probeSandbox } from "../../src/workspace/exec-sandbox/probe.js";
import { postgresAvailability } from "../store/postgres-server.js";

export type RequirementId = "sandbox" | "tmux" | "ripgrep" | "postgres" | "chromium" | "jq" | "curl";

export interface Requirement {
  id: RequirementId;
  /** What the groups need, for the skip block: "the command sandbox (bubblewrap)". */
  label: string;
  /** The one command that installs it. */
  install: string;
  /** Why it is missing here; undefined when it is present. */
  missing(): Promise<string | undefined>;
}

/** Where skipped groups are recorded, one JSON line each; set by the skip reporter. */
export const SKIP_LOG_ENV = "RESON_TEST_SKIP_LOG";

export interface SkipRecord {
  requirement: RequirementId;
  label: string;
  install: string;
  why: string;
  file: string;
  group: string;
}

function onPath(program: string): boolean {
  return (process.env.PATH ?? "").split(":").some((dir) => dir !== "" && existsSync(`${dir}/${program}`));
}

function runs(program: string, args: string[]): boolean {
  try {
    execFileSync(program, args, { stdio: "ignore", timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

export const REQUIREMENTS: Record<RequirementId, Requirement> = {
  sandbox: {
    id: "sandbox",
    label: "the command sandbox (bubblewrap)",
    install: INSTALL.bubblewrap,
    async missing() {
      const status = await probeSandbox();
      if (status.level === "enforced") return undefined;
      return status.problems.map((problem) => problem.what).join("; ") || status.summary;
    },
  },
  tmux: {
    id: "tmux",
    label: "a pseudo-terminal (tmux)",
    install: INSTALL.tmux,
    missing: async () => (runs("tmux", ["-V"]) ? undefined : "tmux is not installed"),
  },
  ripgrep: {
    id: "ripgrep",
    label: "ripgrep (rg)",
    install: INSTALL.ripgrep,
    missing: async () => (onPath("rg") ? undefined : "rg is not on PATH"),
  },
  chromium: {
    id: "chromium",
    label: "a Chromium browser",
    install: INSTALL.chromium,
    missing: async () =>
      onPath("chromium") || onPath("google-chrome") ? undefined : "no chromium or google-chrome on PATH",
  },
  jq: {
    id: "jq",
    label: "jq",
    install: INSTALL.jq,
    missing: async () => (onPath("jq") ? undefined : "jq is not on PATH"),
  },
  curl: {
    id: "curl",
    label: "curl",
    install: INSTALL.curl,
    missing: async () => (onPath("curl") ? undefined : "curl is not on PATH"),
  },
  postgres: {
    id: "postgres",
    label: "a PostgreSQL server",
    install: INSTALL.postgresql,
    async missing() {
      const availability = postgresAvailability();
      return availability.available ? undefined : availability.reason;
    },
  },
};

/** Whether this machine lacks the requirement; CI never lacks one (its tests then fail). */
export async function lacks(id: RequirementId): Promise<boolean> {
  if (process.env.CI) return false;
  return (await REQUIREMENTS[id].missing()) !== undefined;
}

/**
 * True when `group` (a describe or test name) must be skipped on this machine because `id` is
 * missing, recorded for the skip block. Always false under CI=true. Use with `skipIf`:
 * `describe.skipIf(await skipWithout("sandbox", "crash safety"))("crash safety", …)`.
 */
export async function skipWithout(id: RequirementId, group: string): Promise<boolean> {
  if (process.env.CI) return false;
  const requirement = REQUIREMENTS[id];
  const why = await requirement.missing();
  if (why === undefined) return false;
  const log = process.env[SKIP_LOG_ENV];
  if (log) {
    const record: SkipRecord = {
      requirement: id,
      label: requirement.label,
      install: requirement.install,
      why,
      file: relative(process.cwd(), testFile()),
      group,
    };
    appendFileSync(log, `${JSON.stringify(record)}\n`);
  }
  return true;
}

/** The test file being collected (vitest's own record of it, else the caller on the stack). */
function testFile(): string {
  const collecting = expect.getState().testPath;
  if (collecting) return collecting;
  const stack = new Error().stack ?? "";
  const match = stack
    .split("\n")
    .map((line) => /(?:file:\/\/)?(\/[^\s():]+\.test\.ts)/.exec(line)?.[1])
    .find((path) => path !== undefined);
  return match ?? "(unknown file)";
}
