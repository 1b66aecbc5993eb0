// End to end: registered workspaces through the reson command. Create (in $RESON_HOME or at a
// path, from a template), list and show (also as JSON), default, rename, use, remove (files
// deleted only when asked and confirmed); `run -w <name>` works in the workspace's folder
// and marks it used; started outside any project, reson works in the default workspace.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, parseEvents, runCli } from "../support/cli.js";
import { fakeModelArgs, useCliFixture } from "../support/cli-fixture.js";
import { noSandbox } from "../workspace/exec-sandbox/fixture.js";

interface Listed {
  id: string;
  name: string;
  path: string;
  template: string | null;
  isDefault: boolean;
  createdByReson: boolean;
  lastUsedAt: number | null;
}

describe("reson workspace", () => {
  const f = useCliFixture();
  const env = (more: Record<string, string> = {}) => cleanEnv({ RESON_HOME: f.home.path, ...more });
  const reson = (args: string[], more: Record<string, string> = {}, input?: string) =>
    runCli(args, { cwd: f.ws.path, env: env(more), ...(input !== undefined ? { input } : {}) });
  const list = async (): Promise<Listed[]> => {
    const result = await reson(["workspace", "list", "--json"]);
    expect(result.code).toBe(0);
    return result.stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Listed);
  };

  it("creates a workspace from the notes template in $RESON_HOME/workspaces, lists and shows it", async () => {
    const created = await reson(["workspace", "create", "research", "--template", "notes"]);
    expect(created.code).toBe(0);
    const folder = join(f.home.path, "workspaces", "research");
    expect(created.stdout).toContain(`Created workspace research`);
    expect(readFileSync(join(folder, "AGENTS.md"), "utf8")).toContain("This workspace is a notebook");
    const [listed, ...others] = await list();
    expect(others).toEqual([]);
    expect(listed).toMatchObject({ name: "research", path: folder, template: "notes", createdByReson: true });
    expect(listed!.id).toMatch(/^ws_[0-9A-Z]{26}$/);
    const shown = await reson(["workspace", "show", listed!.id, "--json"]);
    expect(JSON.parse(shown.stdout)).toEqual(listed);
    const human = await reson(["workspace", "list"]);
    expect(human.stdout).toContain("research");
    expect(human.stdout).toContain(folder);
  });

  it("refuses a taken name, a folder already registered, a bad name and an unknown template, with exit 2 and a hint", async () => {
    expect((await reson(["workspace", "create", "a"])).code).toBe(0);
    const again = await reson(["workspace", "create", "a"]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("A workspace named a is already registered");
    const samePath = await reson([
      "workspace",
      "create",
      "b",
      "--path",
      join(f.home.path, "workspaces", "a"),
    ]);
    expect(samePath.code).toBe(2);
    expect(samePath.stderr).toContain("is already registered as workspace a");
    const bad = await reson(["workspace", "create", "../up"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("is not a workspace name");
    const template = await reson(["workspace", "create", "c", "--template", "nope"]);
    expect(template.code).toBe(2);
    expect(template.stderr).toContain("There is no workspace template named nope");
    expect(template.stderr).toContain("empty, notes");
    expect(existsSync(join(f.home.path, "workspaces", "c"))).toBe(false);
    expect((await list()).map((w) => w.name)).toEqual(["a"]);
  });

  it("registers an existing folder with --path as it is, adding only the template files it lacks; a user template is copied", async () => {
    const project = join(f.ws.path, "project");
    mkdirSync(project);
    writeFileSync(join(project, "AGENTS.md"), "mine\n");
    const registered = await reson(["workspace", "create", "proj", "--path", project, "--template", "notes"]);
    expect(registered.code).toBe(0);
    expect(registered.stdout).toContain("Kept the folder's own AGENTS.md");
    expect(readFileSync(join(project, "AGENTS.md"), "utf8")).toBe("mine\n");
    expect(existsSync(join(project, "notes", "README.md"))).toBe(true);

    mkdirSync(join(f.home.path, "templates", "site", "src"), { recursive: true });
    writeFileSync(join(f.home.path, "templates", "site", "src", "index.html"), "<h1>hi</h1>\n");
    const fromUser = await reson(["workspace", "create", "web", "--template", "site"]);
    expect(fromUser.code).toBe(0);
    expect(readFileSync(join(f.home.path, "workspaces", "web", "src", "index.html"), "utf8")).toBe(
      "<h1>hi</h1>\n",
    );
    const templates = await reson(["workspace", "templates"]);
    expect(templates.stdout).toContain(join(f.home.path, "templates", "site"));
    expect(templates.stdout).toMatch(/notes\s+built in/);
  });

  it("a user template's own permission settings are approved with the workspace made from it, a folder's own are not", async () => {
    const settings = { permissions: { allow: ["Bash(make test)"], defaultMode: "acceptEdits" } };
    mkdirSync(join(f.home.path, "templates", "ci", ".reson"), { recursive: true });
    writeFileSync(join(f.home.path, "templates", "ci", ".reson", "settings.json"), JSON.stringify(settings));
    const created = await reson(["workspace", "create", "ci-one", "--template", "ci"]);
    expect(created.code).toBe(0);
    expect(created.stdout).toContain(
      "Approved what your template's settings grant: Bash(make test), mode acceptEdits",
    );
    const shown = await reson(["permissions", "-w", "ci-one"]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).not.toContain("Waiting for your approval");
    expect(shown.stdout).toContain("Bash(make test)");
    // A folder that had its own settings keeps them, and they wait as any workspace's do.
    const folder = join(f.ws.path, "cloned");
    mkdirSync(join(folder, ".reson"), { recursive: true });
    const theirs = { permissions: { allow: ["Bash(curl evil.example)"] } };
    writeFileSync(join(folder, ".reson", "settings.json"), JSON.stringify(theirs));
    const registered = await reson(["workspace", "create", "ci-two", "--template", "ci", "--path", folder]);
    expect(registered.code).toBe(0);
    expect(registered.stdout).not.toContain("Approved");
    const waiting = await reson(["permissions", "-w", "ci-two"]);
    expect(waiting.stdout).toContain("Waiting for your approval");
    expect(waiting.stdout).toContain("allow Bash(curl evil.example)");
  });

  it("refuses to register / or the home folder", async () => {
    const root = await reson(["workspace", "create", "everything", "--path", "/"]);
    expect(root.code).toBe(2);
    expect(root.stderr).toContain("reson will not register / as a workspace: it is the whole file system");
    const home = await reson(["workspace", "create", "home", "--path", f.ws.path], { HOME: f.ws.path });
    expect(home.code).toBe(2);
    expect(home.stderr).toContain("it is your home folder");
    expect(await list()).toEqual([]);
  });

  it("default, rename and use: one default at a time; use prints the shell line that picks a workspace", async () => {
    await reson(["workspace", "create", "a"]);
    await reson(["workspace", "create", "b"]);
    expect((await reson(["workspace", "default", "a"])).code).toBe(0);
    expect((await reson(["workspace", "default", "b"])).stdout).toContain("b (");
    expect((await list()).filter((w) => w.isDefault).map((w) => w.name)).toEqual(["b"]);
    const renamed = await reson(["workspace", "rename", "b", "beta"]);
    expect(renamed.code).toBe(0);
    const beta = (await list()).find((w) => w.name === "beta")!;
    expect(beta.path).toBe(join(f.home.path, "workspaces", "b"));
    const use = await reson(["workspace", "use", "beta"]);
    expect(use.stdout).toBe(`export RESON_WORKSPACE='${beta.id}'\n`);
    expect((await reson(["workspace", "use", "--clear"])).stdout).toBe("unset RESON_WORKSPACE\n");
    const missing = await reson(["workspace", "show", "nope"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("No workspace nope is registered");
  });

  it("remove unregisters and keeps the files; --delete-files needs --yes without a terminal, then deletes", async () => {
    await reson(["workspace", "create", "keep", "--template", "notes"]);
    await reson(["workspace", "create", "gone", "--template", "notes"]);
    const kept = await reson(["workspace", "remove", "keep"]);
    expect(kept.code).toBe(0);
    expect(kept.stdout).toContain("its files stay in");
    expect(existsSync(join(f.home.path, "workspaces", "keep", "AGENTS.md"))).toBe(true);

    const unconfirmed = await reson(["workspace", "remove", "gone", "--delete-files"], {}, "gone\n");
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain("needs a confirmation");
    expect(existsSync(join(f.home.path, "workspaces", "gone"))).toBe(true);
    expect((await list()).map((w) => w.name)).toEqual(["gone"]);

    const deleted = await reson(["workspace", "remove", "gone", "--delete-files", "--yes"]);
    expect(deleted.code).toBe(0);
    expect(existsSync(join(f.home.path, "workspaces", "gone"))).toBe(false);
    expect(await list()).toEqual([]);
  });

  it("never deletes a folder that holds more than a workspace, even with --delete-files --yes", async () => {
    // Registered while it was an ordinary folder; later it is the home folder.
    await reson(["workspace", "create", "wide", "--path", f.ws.path]);
    writeFileSync(join(f.ws.path, "precious.txt"), "keep me\n");
    const refused = await reson(["workspace", "remove", "wide", "--delete-files", "--yes"], {
      HOME: f.ws.path,
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`reson will not delete ${f.ws.path}: it is your home folder`);
    expect(readFileSync(join(f.ws.path, "precious.txt"), "utf8")).toBe("keep me\n");
    expect((await list()).map((w) => w.name)).toEqual(["wide"]);
  });

  it("run -w <name> works in the workspace's folder and marks it used; RESON_WORKSPACE does the same", async () => {
    await reson(["workspace", "create", "notes", "--template", "notes"]);
    const folder = join(f.home.path, "workspaces", "notes");
    f.server.enqueue(
      { toolCalls: [{ name: "write_file", arguments: { path: "idea.md", content: "an idea\n" } }] },
      { text: "written" },
    );
    const result = await reson(["run", "--json", ...fakeModelArgs(f.server), "-w", "notes", "note an idea"]);
    expect(result.code).toBe(0);
    expect(readFileSync(join(folder, "idea.md"), "utf8")).toBe("an idea\n");
    // The workspace's AGENTS.md reached the model.
    expect(JSON.stringify(f.server.requests[0]?.body)).toContain("This workspace is a notebook");
    const used = (await list())[0]!;
    expect(used.lastUsedAt).toBeGreaterThan(0);

    const use = await reson(["workspace", "use", "notes"]);
    const id = /RESON_WORKSPACE='([^']+)'/.exec(use.stdout)![1]!;
    f.server.enqueue(
      { toolCalls: [{ name: "write_file", arguments: { path: "two.md", content: "2\n" } }] },
      { text: "ok" },
    );
    const viaEnv = await reson(["run", "--json", ...fakeModelArgs(f.server), "second note"], {
      RESON_WORKSPACE: id,
    });
    expect(viaEnv.code).toBe(0);
    expect(readFileSync(join(folder, "two.md"), "utf8")).toBe("2\n");
    const stale = await reson(["run", ...fakeModelArgs(f.server), "x"], {
      RESON_WORKSPACE: "ws_01NOTAWORKSPACE0000000000",
    });
    expect(stale.code).toBe(2);
    expect(stale.stderr).toContain("names no registered workspace");
  });

  it("a workspace's settings apply to every run in it, under flags; bad keys and values are refused", async () => {
    expect((await reson(["workspace", "create", "tuned"])).code).toBe(0);
    const set = await reson([
      "workspace",
      "settings",
      "tuned",
      "maxOutputTokens=321",
      "memory.enabled=false",
    ]);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain('"maxOutputTokens": 321');
    const shown = await reson(["workspace", "settings", "tuned", "--json"]);
    expect(JSON.parse(shown.stdout)).toEqual({ maxOutputTokens: 321, memory: { enabled: false } });

    f.server.enqueue({ text: "ok" });
    const run = await reson(["run", "--json", ...fakeModelArgs(f.server), "-w", "tuned", "hello"]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.stringify(f.server.requests.at(-1)?.body)).toContain('"max_tokens":321');
    // Not in another folder.
    f.server.enqueue({ text: "ok" });
    expect((await reson(["run", "--json", ...fakeModelArgs(f.server), "hello"])).code).toBe(0);
    expect(JSON.stringify(f.server.requests.at(-1)?.body)).not.toContain('"max_tokens":321');

    const bad = await reson(["workspace", "settings", "tuned", "maxOutputTokens=lots"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("maxOutputTokens");
    expect((await reson(["workspace", "settings", "tuned", "noSuchKey=1"])).code).toBe(2);
    const unset = await reson(["workspace", "settings", "tuned", "--unset", "memory.enabled", "--json"]);
    expect(JSON.parse(unset.stdout)).toEqual({ maxOutputTokens: 321 });
  });

  it("the commands that look at a workspace (skills, tools, doctor, mcp, plugin, memory) take its name with -w", async () => {
    expect((await reson(["workspace", "create", "lab"])).code).toBe(0);
    const folder = join(f.home.path, "workspaces", "lab");
    mkdirSync(join(folder, ".reson", "skills", "lab-skill"), { recursive: true });
    writeFileSync(
      join(folder, ".reson", "skills", "lab-skill", "SKILL.md"),
      "---\nname: lab-skill\ndescription: Only in the lab workspace.\n---\nBody.\n",
    );
    const skills = await reson(["skills", "-w", "lab", "--json"]);
    expect(skills.code, skills.stderr).toBe(0);
    expect(skills.stdout).toContain('"lab-skill"');
    for (const args of [
      ["tools", "-w", "lab"],
      ["mcp", "list", "-w", "lab"],
      ["plugin", "list", "-w", "lab"],
      ["memory", "list", "-w", "lab"],
    ]) {
      const result = await reson(args);
      expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(0);
    }
    const unknown = await reson(["skills", "-w", "no-such-workspace"]);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain("no-such-workspace");
  });

  it("a -w value that is both a folder here and a workspace's name is the folder, and reson says so", async () => {
    await reson(["workspace", "create", "site"]);
    mkdirSync(join(f.ws.path, "site"));
    f.server.enqueue(
      { toolCalls: [{ name: "write_file", arguments: { path: "x.txt", content: "x" } }] },
      { text: "ok" },
    );
    const result = await reson(["run", "--json", ...fakeModelArgs(f.server), "-w", "site", "write x"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("site is a folder here and also the name of workspace site");
    expect(existsSync(join(f.ws.path, "site", "x.txt"))).toBe(true);
    expect(existsSync(join(f.home.path, "workspaces", "site", "x.txt"))).toBe(false);
  });

  it("started in the home folder with no workspace, a run works in the default workspace, made on first use, and says where", async () => {
    f.server.enqueue(
      { toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "A" } }] },
      { text: "done" },
    );
    const first = await reson(["run", "--json", ...fakeModelArgs(f.server), "write a"], { HOME: f.ws.path });
    expect(first.code).toBe(0);
    const folder = join(f.home.path, "workspaces", "default");
    expect(first.stderr).toContain(`reson: ${f.ws.path} is not a project folder (it is your home folder)`);
    expect(first.stderr).toContain(`working in the new default workspace ${folder}`);
    expect(readFileSync(join(folder, "a.txt"), "utf8")).toBe("A");
    expect(existsSync(join(f.ws.path, "a.txt"))).toBe(false);
    f.server.enqueue({ text: "again" });
    const second = await reson(["run", "--json", ...fakeModelArgs(f.server), "hi"], { HOME: f.ws.path });
    expect(second.code).toBe(0);
    expect(second.stderr).toContain(`working in the default workspace ${folder}`);
    const all = await list();
    expect(all.map((w) => [w.name, w.isDefault])).toEqual([["default", true]]);
    const events = parseEvents(second.stdout);
    expect(events.at(-1)).toMatchObject({ type: "run_end", status: "completed" });
  });

  it("the terminal started in the home folder opens the default workspace without asking to trust the home folder", async () => {
    const result = await runCli([...fakeModelArgs(f.server)], {
      cwd: f.ws.path,
      env: env({ HOME: f.ws.path }),
      input: "/exit\n",
    });
    expect(result.code).toBe(0);
    const folder = join(f.home.path, "workspaces", "default");
    expect(result.stderr).toContain(`working in the new default workspace ${folder}`);
    expect(result.stdout).not.toContain("Trust this folder?");
    expect(result.stdout).toContain(`reson · openai-compatible/fake-model · ${folder}`);
  });

  it.skipIf(noSandbox)(
    "commands in a workspace inside $RESON_HOME run in the OS sandbox, and the rest of reson's folder stays hidden from them",
    async () => {
      writeFileSync(
        join(f.home.path, "secrets.json"),
        '{ "example.com": { "api": "SECRET-VALUE-77e1" } }\n',
        {
          mode: 0o600,
        },
      );
      await reson(["workspace", "create", "box"]);
      f.server.enqueue(
        {
          toolCalls: [
            {
              name: "execute_command",
              arguments: { command: "echo made > made.txt; cat ../../secrets.json || echo HIDDEN" },
            },
          ],
        },
        { text: "ok" },
      );
      const result = await reson(["run", "--json", ...fakeModelArgs(f.server), "-w", "box", "try"]);
      expect(result.code).toBe(0);
      expect(readFileSync(join(f.home.path, "workspaces", "box", "made.txt"), "utf8")).toBe("made\n");
      const output = JSON.stringify(parseEvents(result.stdout).filter((e) => e.type === "tool_result"));
      expect(output).toContain("HIDDEN");
      expect(output).not.toContain("SECRET-VALUE-77e1");
    },
  );
});
