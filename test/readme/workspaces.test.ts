// README "Workspaces": registering, listing, using and removing workspaces, `workspace use`
// through eval, and a workspace's own settings, each block run as written in a user's shell.
//
// Harness variables: RESON_PROVIDER=openai-compatible and RESON_BASE_URL point at the fake model
// server (and RESON_MODEL, except where the block sets the model itself), beside cleanEnv's
// (test/support/cli.ts).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { localModel } from "./readme-user.js";
import { reson, scenario, useModel, useShell, useUser } from "./scenario.js";

describe("README: Workspaces", () => {
  scenario("reson workspace create notes --template notes", async (block) => {
    const model = await useModel({ replies: [{ text: "You wrote nothing this week." }] });
    const user = useUser(localModel(model));
    const shell = useShell(block, user);
    const notes = join(user.home, ".reson/workspaces/notes");
    const site = join(user.home, "code/site");

    await shell.run("reson workspace create notes --template notes");
    expect(readFileSync(join(notes, "AGENTS.md"), "utf8")).toContain("notes/");
    await shell.run("reson workspace create site --path ~/code/site");
    expect(existsSync(site)).toBe(true);
    const list = await shell.runBoth("reson workspace list [--json]");
    expect(list.without.stdout).toMatch(/notes\s+ws_\w+\s+never\s/);
    expect(
      list.with.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line).name),
    ).toEqual(["site", "notes"]);
    const show = await shell.runBoth("reson workspace show notes [--json]");
    expect(show.without.stdout).toContain(notes);
    expect(JSON.parse(show.with.stdout)).toMatchObject({ name: "notes", path: notes, template: "notes" });
    await shell.run("reson workspace default notes");
    expect((await shell.probe("reson workspace list")).stdout).toMatch(/^\s*\*\s+notes\s/m);
    const templates = await shell.run("reson workspace templates");
    expect(templates.stdout).toMatch(/^empty\s+built in$/m);
    expect(templates.stdout).toMatch(/^notes\s+built in$/m);
    const run = await shell.run('reson run -w notes "sum up what I wrote this week"');
    expect(run.stdout).toContain("You wrote nothing this week.");
    expect(run.stderr).toContain(notes);
    // The notes template's AGENTS.md is in what the model was told.
    expect(JSON.stringify(model.requests[0]?.body)).toContain("notes/");
    await shell.run("reson workspace rename notes journal");
    await shell.run("reson workspace remove journal");
    expect(existsSync(join(notes, "AGENTS.md"))).toBe(true);
    // No terminal here to type the name into: reson says to confirm with --yes instead.
    const refused = await shell.run("reson workspace remove site --delete-files", { code: 2 });
    expect(refused.stderr).toContain("--yes");
    shell.end();
    await shell.probe("reson workspace remove site --delete-files --yes");
    expect(existsSync(site)).toBe(false);
    expect((await shell.probe("reson workspace list --json")).stdout).toBe("");
  });

  scenario('eval "$(reson workspace use notes)"', async (block) => {
    const model = await useModel({ replies: [{ text: "In notes." }, { text: "Here." }] });
    const user = useUser(localModel(model));
    expect((await reson(user, ["workspace", "create", "notes", "--template", "notes"])).code).toBe(0);
    const notes = join(user.home, ".reson/workspaces/notes");
    const shell = useShell(block, user);

    await shell.run('eval "$(reson workspace use notes)"');
    expect((await shell.probe('echo "$RESON_WORKSPACE"')).stdout).toMatch(/^ws_\w+\n$/);
    expect((await shell.probe('reson run "where am I?"')).stderr).toContain(notes);
    await shell.run('eval "$(reson workspace use --clear)"');
    shell.end();
    expect((await shell.probe('[ -z "$RESON_WORKSPACE" ] && echo cleared')).stdout).toBe("cleared\n");
    expect((await shell.probe('reson run "where am I?"')).stderr).toContain(user.work);
  });

  scenario("reson workspace settings notes model=claude-haiku-4-5 memory.enabled=false", async (block) => {
    const model = await useModel({ replies: [{ text: "ok" }] });
    // No RESON_MODEL: the workspace's settings name the model.
    const user = useUser({ RESON_PROVIDER: "openai-compatible", RESON_BASE_URL: model.openaiBaseUrl });
    expect((await reson(user, ["workspace", "create", "notes"])).code).toBe(0);
    const shell = useShell(block, user);

    await shell.run("reson workspace settings notes model=claude-haiku-4-5 memory.enabled=false");
    expect(JSON.parse((await shell.probe("reson workspace settings notes --json")).stdout)).toEqual({
      model: "claude-haiku-4-5",
      memory: { enabled: false },
    });
    await shell.probe('reson run -w notes "hello"');
    expect(model.requests[0]?.body).toMatchObject({ model: "claude-haiku-4-5" });
    await shell.run("reson workspace settings notes --unset memory.enabled");
    const shown = await shell.runBoth("reson workspace settings notes [--json]");
    shell.end();
    expect(shown.without.stdout).toContain("claude-haiku-4-5");
    expect(shown.without.stdout).not.toContain("memory");
    expect(JSON.parse(shown.with.stdout)).toEqual({ model: "claude-haiku-4-5" });
  });
});
