// The assembled system prompt: sections in the fixed order, each headed by its file, the
// same bytes for the same inputs, and a manifest that says exactly what went in.
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  assembleSystemPrompt,
  type BaselineInput,
  baselineSystemPrompt,
  contextManifest,
  loadInstructions,
  SECTION_SEPARATOR,
  type SystemPromptInput,
  sha256Hex,
} from "../../src/context/index.js";
import { estimateTokens } from "../../src/core/tokens.js";

let base: string;
let home: string;
let repo: string;
let workspace: string;

const baseline: BaselineInput = { workspaceRoot: "/w", platform: "linux x64", date: "2026-12-01" };
const coreSkill = { path: "/skills/core/SKILL.md", text: "# Core\n\nPlan with the goal tool, then act." };

async function put(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
}

async function input(memory = "- The build needs `npm run build` before tests."): Promise<SystemPromptInput> {
  const { files } = await loadInstructions({ workspaceRoot: workspace, home });
  return { baseline, coreSkill, instructions: files, memory };
}

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "reson-prompt-")));
  home = join(base, "home");
  repo = join(base, "repo");
  workspace = join(repo, "svc", "api");
  await mkdir(join(repo, ".git"), { recursive: true });
  await mkdir(workspace, { recursive: true });
  await put(join(home, "AGENTS.md"), "HOME-AGENTS: answer in English.");
  await put(join(repo, "AGENTS.md"), "ROOT-AGENTS: run the linter.");
  await put(join(repo, "svc", "AGENTS.md"), "SVC-AGENTS: services share a logger.");
  await put(join(workspace, "AGENTS.md"), "API-AGENTS: keep handlers thin.");
  await put(join(workspace, "SOUL.md"), "SOUL: be terse.");
  await put(join(home, "USER.md"), "HOME-USER: prefers tables.");
  await put(join(workspace, "USER.md"), "WS-USER: owns the api service.");
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("assembleSystemPrompt", () => {
  it("renders baseline, core skill, AGENTS.md from home then root to workspace, SOUL.md, USER.md, memory", async () => {
    const { text, manifest } = assembleSystemPrompt(await input());
    expect(manifest.map((e) => e.section)).toEqual([
      "baseline",
      "core-skill",
      "agents",
      "agents",
      "agents",
      "agents",
      "soul",
      "user",
      "user",
      "memory",
    ]);
    const order = [
      "You are reson",
      "Plan with the goal tool",
      "HOME-AGENTS",
      "ROOT-AGENTS",
      "SVC-AGENTS",
      "API-AGENTS",
      "SOUL: be terse",
      "HOME-USER",
      "WS-USER",
      "npm run build",
    ].map((needle) => text.indexOf(needle));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it("heads every section with the file it came from", async () => {
    const { text, manifest } = assembleSystemPrompt(await input());
    expect(manifest.map((e) => e.source)).toEqual([
      null,
      coreSkill.path,
      join(home, "AGENTS.md"),
      join(repo, "AGENTS.md"),
      join(repo, "svc", "AGENTS.md"),
      join(workspace, "AGENTS.md"),
      join(workspace, "SOUL.md"),
      join(home, "USER.md"),
      join(workspace, "USER.md"),
      null,
    ]);
    expect(text).toContain(`# AGENTS.md (user-level: ${join(home, "AGENTS.md")})\n\nHOME-AGENTS`);
    expect(text).toContain(`# AGENTS.md (project: ${join(repo, "svc", "AGENTS.md")})\n\nSVC-AGENTS`);
    expect(text).toContain(`# SOUL.md (project: ${join(workspace, "SOUL.md")})\n\nSOUL: be terse.`);
    expect(text).toContain(`# Core skill (${coreSkill.path})`);
    expect(text).toContain("# Relevant memory and experiences\n\n- The build needs");
  });

  it("keeps no goal tree or history in the system prompt: only what it was given", async () => {
    const { text } = assembleSystemPrompt(await input());
    expect(text).not.toMatch(/goal tree|history/i);
  });

  it("gives the same bytes for the same inputs", async () => {
    const first = assembleSystemPrompt(await input());
    const second = assembleSystemPrompt(await input());
    expect(second.text).toBe(first.text);
    expect(second.manifest).toEqual(first.manifest);
  });

  it("when one file changes, only its section and hash change", async () => {
    const before = assembleSystemPrompt(await input());
    await put(join(workspace, "SOUL.md"), "SOUL: be warm and thorough.");
    const after = assembleSystemPrompt(await input());
    const changed = after.manifest.flatMap((entry, i) =>
      entry.sha256 === before.manifest[i]?.sha256 ? [] : [i],
    );
    expect(changed).toEqual([6]);
    expect(after.manifest[6]?.section).toBe("soul");
    for (const [i, entry] of after.manifest.entries()) if (i !== 6) expect(entry).toEqual(before.manifest[i]);
    // Everything before the changed section is a byte-identical prefix (what prompt caches key on).
    const prefix = before.text.slice(0, before.text.indexOf("# SOUL.md"));
    expect(after.text.startsWith(prefix)).toBe(true);
  });

  it("records sizes, hashes and token estimates of exactly what was sent", async () => {
    const { text, manifest } = assembleSystemPrompt(await input());
    const sections = text.split(SECTION_SEPARATOR);
    // Sections may contain blank lines themselves; rebuild them from the manifest lengths instead.
    let at = 0;
    for (const entry of manifest) {
      const section = text.slice(at, at + entry.injectedChars);
      expect(entry.sha256).toBe(sha256Hex(section));
      expect(entry.estTokens).toBe(estimateTokens(section));
      at += entry.injectedChars + SECTION_SEPARATOR.length;
    }
    expect(at - SECTION_SEPARATOR.length).toBe(text.length);
    expect(sections.length).toBeGreaterThanOrEqual(manifest.length);

    const soul = manifest[6]!;
    expect(soul.rawChars).toBe("SOUL: be terse.".length);
    expect(soul.truncated).toBe(false);
    expect(soul.sha256).toMatch(/^[0-9a-f]{64}$/);

    const whole = contextManifest(manifest);
    expect(whole.totalChars).toBe(manifest.reduce((s, e) => s + e.injectedChars, 0));
    expect(whole.estTokens).toBe(manifest.reduce((s, e) => s + e.estTokens, 0));
  });

  it("shows the cut marker of an oversized AGENTS.md and marks its entry truncated", async () => {
    const big = Array.from({ length: 2000 }, (_, i) => `rule ${i}: keep handlers thin.`).join("\n");
    await put(join(workspace, "AGENTS.md"), big);
    const { text, manifest } = assembleSystemPrompt(await input());
    expect(text).toMatch(/\[… \d+ characters cut from .*AGENTS\.md; read the file for the rest …\]/);
    const entry = manifest[5]!;
    expect(entry).toMatchObject({ section: "agents", truncated: true, rawChars: big.length });
    expect(entry.injectedChars).toBeLessThan(21_000);
  });

  it("is the plain baseline when there is nothing else, so existing prompts keep their bytes", () => {
    const { text, manifest } = assembleSystemPrompt({ baseline, instructions: [], memory: "  " });
    expect(text).toBe(baselineSystemPrompt(baseline));
    expect(manifest).toHaveLength(1);
    expect(manifest[0]).toMatchObject({ section: "baseline", source: null, truncated: false });
  });
});
