// One protected list, two enforcers: the permission guard (file tools ask, or are refused) and
// the sandbox (read-only mounts and placeholders for commands) protect exactly the same paths
// of a workspace, so acceptEdits' premise holds: a sandboxed command, allowed without asking,
// can write nothing a file edit would be asked about. The guard judges only the part of a path
// below the workspace root, and its denials tell the user what to do, not the model where to write.
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evaluate, PermissionGate, type PermissionMode } from "../../src/permissions/index.js";
import { planProtection, releaseProtection } from "../../src/workspace/exec-sandbox/protected-paths.js";
import {
  miseEnvironmentConfigs,
  PROTECTED_LIST,
  type ProtectedKind,
  workspacePolicy,
} from "../../src/workspace/index.js";
import { cmd, HOME, policyOf, write } from "./support.js";

let root: string;
let home: string;
const EXISTING_OF_PATTERN = "mise.staging.toml";

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "reson-list-")));
  home = await realpath(await mkdtemp(join(tmpdir(), "reson-list-home-")));
  // A name of a family the list matches by pattern (mise's environment configs), as the user has one.
  await writeFile(join(root, EXISTING_OF_PATTERN), "[env]\n");
  // The folders tools make for their own files, where the list's entries in them are protected
  // only where they exist (whereFolderExists): `.config` (mise's configs), a Gradle and a Maven wrapper's.
  for (const folder of new Set(PROTECTED_LIST.flatMap((entry) => entry.whereFolderExists ?? [])))
    await mkdir(join(root, folder), { recursive: true });
  // And the files that make an entry matter (a package.json for node_modules).
  for (const file of new Set(PROTECTED_LIST.flatMap((entry) => entry.whereFileExists ?? [])))
    await writeFile(join(root, file), "{}\n");
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
});

/** Paths (relative) the sandbox keeps read-only for a command in an empty workspace. */
async function sandboxProtected(kinds: readonly ProtectedKind[]): Promise<string[]> {
  const plan = await planProtection(workspacePolicy(root, { home, protectedKinds: kinds }));
  await releaseProtection(plan);
  return [...plan.readOnly, ...plan.placeholders].map((path) => path.slice(root.length + 1));
}

/** The sandbox's protected path covering `path` (relative), if any. */
function covering(paths: readonly string[], path: string): string | undefined {
  return paths.find((entry) => path === entry || path.startsWith(`${entry}/`));
}

/** Whether a leading part of the path is a name a patterned entry matches that does not exist. */
function unmadePatterned(segments: readonly string[]): boolean {
  return segments.some((_, i) => {
    const prefix = segments.slice(0, i + 1).join("/");
    return PROTECTED_LIST.some((entry) => entry.pattern?.test(prefix)) && !existsSync(join(root, prefix));
  });
}

/** A placeholder standing in for a missing folder that holds entries of the list (.claude, .agents). */
function standsInForParent(placeholder: string): boolean {
  return PROTECTED_LIST.some((entry) => entry.path.startsWith(`${placeholder}/`));
}

function decide(path: string, mode: PermissionMode, kinds?: readonly ProtectedKind[]) {
  return evaluate(write(path), policyOf(), {
    workspaceRoot: root,
    userHome: home,
    mode,
    sandbox: "enforced",
    ...(kinds ? { protectedKinds: kinds } : {}),
  });
}

const SEGMENTS = [
  ...new Set(PROTECTED_LIST.filter((entry) => !entry.pattern).flatMap((entry) => entry.path.split("/"))),
  EXISTING_OF_PATTERN,
  "src",
  "a.ts",
  "hooks",
  "config",
  ".github",
  "docs",
];

describe("the protected list", () => {
  it("is what both enforcers read: every path a file edit is asked about, the sandbox keeps read-only, and no other but a missing parent", async () => {
    for (const kinds of [["executes"], ["executes", "steers"], ["executes", "steers", "installs"]] as const) {
      const sandbox = await sandboxProtected(kinds);
      fc.assert(
        fc.property(fc.array(fc.constantFrom(...SEGMENTS), { minLength: 1, maxLength: 4 }), (segments) => {
          const path = segments.join("/");
          const asked = decide(path, "acceptEdits", kinds).behavior !== "allow";
          const by = covering(sandbox, path);
          // The one gap README names: a patterned name (mise.<env>.toml) not made yet has no mount.
          if (asked && !(by === undefined && unmadePatterned(segments))) expect(by, path).toBeDefined();
          else if (by !== undefined) expect(standsInForParent(by), `${path} (by ${by})`).toBe(true);
        }),
        { numRuns: 400 },
      );
      for (const entry of PROTECTED_LIST.filter(
        (item) => kinds.includes(item.kind as never) && !item.pattern,
      )) {
        expect(covering(sandbox, entry.path), entry.path).toBeDefined();
        expect(decide(entry.path, "bypass", kinds).behavior, entry.path).toBe("ask");
      }
    }
  });

  it("keeps mise's environment configs read-only for commands when they exist or MISE_ENV names them, and file tools ask about any", async () => {
    const list = PROTECTED_LIST.map((entry) =>
      entry.pattern ? { ...entry, named: miseEnvironmentConfigs("ci, dev") } : entry,
    );
    const plan = await planProtection(workspacePolicy(root, { home, protected: list }));
    await releaseProtection(plan);
    const kept = [...plan.readOnly, ...plan.placeholders].map((path) => path.slice(root.length + 1));
    for (const name of [EXISTING_OF_PATTERN, "mise.ci.toml", ".mise.dev.local.toml", ".config/mise.ci.toml"])
      expect(covering(kept, name), name).toBeDefined();
    expect(covering(kept, "mise.prod.toml")).toBeUndefined();
    for (const name of ["mise.prod.toml", ".mise.qa.local.toml", ".config/mise.prod.toml"])
      expect(decide(name, "bypass").behavior, name).toBe("ask");
    expect(decide("src/mise.prod.toml", "bypass").behavior).toBe("allow");
  });

  it("gives commands no read-only .config, gradle/ or .mvn/ where the workspace has none (dotnet's tool manifest, nextest, a build wrapper), while file tools still ask about the configs there", async () => {
    const bare = await realpath(await mkdtemp(join(tmpdir(), "reson-list-bare-")));
    try {
      const plan = await planProtection(workspacePolicy(bare, { home }));
      await releaseProtection(plan);
      const kept = [...plan.readOnly, ...plan.placeholders].map((path) => path.slice(bare.length + 1));
      expect(covering(kept, ".config/dotnet-tools.json")).toBeUndefined();
      expect(covering(kept, "mise.toml")).toBeDefined();
      expect(decide(".config/mise.toml", "bypass").behavior).toBe("ask");
      // Nor a read-only gradle/ or .mvn/ where no wrapper is (`gradle wrapper` makes them), while
      // cargo's config, which no tool makes in a project, stands on a placeholder.
      expect(covering(kept, "gradle/wrapper/gradle-wrapper.jar")).toBeUndefined();
      expect(covering(kept, ".mvn/wrapper/maven-wrapper.jar")).toBeUndefined();
      expect(covering(kept, ".cargo/config.toml")).toBeDefined();
      expect(decide("gradle/wrapper/gradle-wrapper.properties", "bypass").behavior).toBe("ask");
    } finally {
      await rm(bare, { recursive: true, force: true });
    }
  });

  it("leaves acceptEdits' commands in the sandbox allowed without a question, whatever program they run", () => {
    for (const command of [
      "python3 -c \"open('x','w')\"",
      "node build.js",
      "make",
      "find . -name '*.o' -delete",
    ]) {
      const decision = evaluate(cmd(command), policyOf(), {
        workspaceRoot: root,
        userHome: home,
        mode: "acceptEdits",
        sandbox: "enforced",
      });
      expect(decision.behavior, command).toBe("allow");
    }
  });

  it("judges only the part of a path below the workspace root", () => {
    const nested = "/home/ann/.reson/workspaces/app";
    const context = { workspaceRoot: nested, userHome: HOME, mode: "acceptEdits" as const };
    expect(evaluate(write("src/main.ts"), policyOf(), context).behavior).toBe("allow");
    expect(evaluate(write(".git/config"), policyOf(), context).behavior).toBe("ask");
    const inGit = { ...context, workspaceRoot: "/srv/repo/.git/worktrees/x/checkout" };
    expect(evaluate(write("notes.md"), policyOf(), inGit).behavior).toBe("allow");
    // The user's own start-up files and keys outside the workspace, by name, as before.
    expect(evaluate(write(`${HOME}/.bashrc`), policyOf(), context).behavior).toBe("ask");
  });

  it("asks about instruction files and skills only when the run's kinds include steering", () => {
    expect(decide("AGENTS.md", "acceptEdits").behavior).toBe("allow");
    expect(decide(".agents/skills/x/SKILL.md", "acceptEdits").behavior).toBe("allow");
    expect(decide("AGENTS.md", "acceptEdits", ["executes", "steers"]).behavior).toBe("ask");
  });
});

describe("a denial of a protected path", () => {
  async function headless(tool: string, args: Record<string, unknown>, mode: PermissionMode) {
    const gate = new PermissionGate({
      policy: { ...policyOf(), mode },
      workspaceRoot: root,
      userHome: home,
      home: "/nonexistent",
      sandbox: "enforced",
    });
    const decision = await gate.hooks().beforeToolCall!({ id: "c1", name: tool, arguments: args }, {
      tool: { name: tool, readOnly: false },
    } as never);
    return decision as { action: string; reason: string; hint: string };
  }

  it("tells the user what to do, and names no other file, rule or mode to the model", async () => {
    const cases = [
      ["write_file", { path: ".vscode/tasks.json", content: "{}" }],
      ["write_file", { path: ".git/hooks/pre-commit", content: "x" }],
      ["execute_command", { command: "cp evil.json .vscode/tasks.json" }],
    ] as const;
    for (const mode of ["acceptEdits", "bypass"] as const) {
      for (const [tool, args] of cases) {
        const { action, reason, hint } = await headless(tool, args, mode);
        expect(action).toBe("deny");
        for (const text of [reason, hint]) {
          expect(text).not.toMatch(/--allow|Edit\(|--permission-mode|bypass/);
          // Only the path that was tried: no list of what else is (or is not) protected.
          for (const other of [".husky", ".envrc", ".idea", ".npmrc"]) expect(text).not.toContain(other);
        }
      }
    }
    expect((await headless(...cases[0], "acceptEdits")).hint).toContain("interactive terminal (`reson`)");
    const never = await headless(...cases[1], "acceptEdits");
    expect(never.hint).toBe(
      "No rule or mode lets it through: .git/hooks/pre-commit is changed only by you, never by the agent " +
        "(git runs the hooks and programs its config names (core.fsmonitor, core.pager, filters)).",
    );
    expect((await headless(...cases[2], "acceptEdits")).hint).toContain(
      "inside the OS sandbox, commands cannot change protected files such as .vscode/tasks.json",
    );
  });
});
