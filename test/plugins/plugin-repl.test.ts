// A project's plugin in the interactive terminal: asked about once before it loads; a yes is
// remembered for that exact package, so the next session loads it without asking. A user's
// folder plugin its author just edited: asked about once, naming the edited file, and one key
// loads the edit.
import { cpSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { registryPath, writeRegistry } from "../../src/plugins/index.js";
import { type ReplFixture, useReplFixture } from "../support/repl-session.js";
import { addUserPlugins } from "../support/user-plugins.js";

const GREETER = resolve(import.meta.dirname, "../fixtures/plugins/greeter");

/** The next session loads the plugin without asking: the yes was remembered. */
async function notAskedAgain(f: ReplFixture): Promise<void> {
  const next = f.open();
  await next.waitFor("reson> ");
  expect(next.output).not.toContain("Trust and load it?");
  next.send("/exit");
  await next.exited;
}

describe("a project's plugin in the interactive terminal", () => {
  const f = useReplFixture(async ({ ws, home }) => {
    const root = join(ws.path, "vendor", "greeter");
    cpSync(GREETER, root, { recursive: true });
    const workspace = realpathSync(ws.path);
    await writeRegistry(
      registryPath("project", { home: home.path, workspace }),
      [
        {
          name: "greeter",
          root: join(workspace, "vendor", "greeter"),
          source: "path:vendor/greeter",
          enabled: true,
          addedAt: "",
        },
      ],
      { relativeTo: workspace },
    );
  });

  it("asks before loading it, and remembers the yes", async () => {
    const first = f.open();
    await first.waitFor('The project registers the plugin "greeter"');
    await first.waitFor("Trust and load it? [y]");
    first.send("y");
    await first.waitFor("reson> ");
    f.server.enqueue({ toolCalls: [{ name: "greet", arguments: { name: "Ann" } }] }, { text: "GREETED" });
    first.send("greet Ann");
    await first.waitFor("GREETED");
    expect(first.output).toContain("plugin greeter@1.2.3 (project)");
    expect(first.output).toContain("✓ greet");
    first.send("/exit");
    await first.exited;

    await notAskedAgain(f);
  });
});

describe("a user's folder plugin its author edits", () => {
  const f = useReplFixture(async ({ ws, home }) => {
    const root = join(ws.path, "greeter");
    cpSync(GREETER, root, { recursive: true });
    await addUserPlugins(home.path, [{ name: "greeter", root }]);
  });

  it("asks once at start, naming the files that changed, and a yes runs the edit", async () => {
    const entry = join(f.ws.path, "greeter", "dev.reson", "index.js");
    writeFileSync(entry, readFileSync(entry, "utf8").replace('?? "Hello"', '?? "Howdy"'));
    // A name a run's command chose, that would erase the line it is on: written out instead.
    writeFileSync(join(f.ws.path, "greeter", "x\u001b[2K.txt"), "");
    const first = f.open();
    await first.waitFor(
      'Your plugin "greeter" (' +
        `${realpathSync(join(f.ws.path, "greeter"))}: its files changed since you trusted it: dev.reson/index.js, x\\x1b[2K.txt)`,
    );
    first.send("y");
    await first.waitFor("reson> ");
    f.server.enqueue({ toolCalls: [{ name: "greet", arguments: { name: "Ann" } }] }, { text: "GREETED" });
    first.send("greet Ann");
    await first.waitFor("GREETED");
    expect(first.output).toContain("plugin greeter@1.2.3 (user)");
    // The model got the edited tool's answer.
    expect(JSON.stringify(f.server.requests.at(-1)?.body)).toContain("Howdy, Ann!");
    first.send("/exit");
    await first.exited;

    await notAskedAgain(f);
  });
});
