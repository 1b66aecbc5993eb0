// A project's plugin in the interactive terminal: asked about once before it loads; a yes is
// remembered for that exact package, so the next session loads it without asking.
import { cpSync, realpathSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { registryPath, writeRegistry } from "../../src/plugins/index.js";
import { useReplFixture } from "../support/repl-session.js";

const GREETER = resolve(import.meta.dirname, "../fixtures/plugins/greeter");

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

    const second = f.open();
    await second.waitFor("reson> ");
    expect(second.output).not.toContain("Trust and load it?");
    second.send("/exit");
    await second.exited;
  });
});
