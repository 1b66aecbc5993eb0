// The "plugins" area of `reson doctor`: every registered plugin and what a run would make of it
// (loaded with its tools, disabled, not trusted, broken and why), found by loading the enabled
// ones exactly as a run does, with no run to attach them to. A plugin a run would leave out
// because it fails to load is a FAIL: doctor then exits 1.
import { toResonError } from "../core/errors.js";
import { discoverPlugins, loadDiscovered } from "../plugins/index.js";
import type { Check, CheckState } from "./doctor-check.js";

export async function pluginChecks(home: string, workspace: string): Promise<Check[]> {
  const checks: Check[] = [];
  const push = (state: CheckState, detail: string, fix?: string) =>
    checks.push({ area: "plugins", state, detail, ...(fix ? { fix } : {}) });
  try {
    const found = await discoverPlugins({ home, workspace });
    const loaded = await loadDiscovered(found, { home, workspace });
    for (const plugin of loaded.plugins) {
      const version = plugin.version ? ` ${plugin.version}` : "";
      const tools = plugin.tools.length > 0 ? `; tools: ${plugin.tools.join(", ")}` : "; no tools";
      const extras = [plugin.skillsDir ? "skills" : "", plugin.mcpFile ? "MCP servers" : ""].filter(Boolean);
      push(
        "ok",
        `${plugin.name}${version} (${plugin.scope}): loaded${tools}${extras.length > 0 ? `; with ${extras.join(" and ")}` : ""}`,
      );
    }
    const loadedNames = new Set(loaded.plugins.map((plugin) => plugin.name));
    for (const error of loaded.errors) {
      // A plugin that loaded with a tool left out still runs; one that did not load is gone.
      if (loadedNames.has(error.plugin)) push("warn", `${error.plugin}: ${error.message}`);
      else push("fail", `${error.plugin}: ${error.message}`);
    }
    for (const plugin of found.untrusted)
      push(
        "warn",
        `${plugin.name} (${plugin.scope}): not loaded: not trusted in its present form (${plugin.reason})`,
        `Trust it with \`reson plugin trust ${plugin.name}\`${plugin.scope === "project" ? ` (in ${workspace})` : ""} after checking its code in ${plugin.root}.`,
      );
    for (const plugin of found.disabled)
      push(
        "ok",
        `${plugin.name} (${plugin.scope}): disabled; \`reson plugin enable ${plugin.name}\` turns it on`,
      );
    // A registered plugin that cannot even be found or hashed is left out of every run too.
    for (const problem of found.problems)
      push("fail", `${problem.name ? `${problem.name}: ` : ""}${problem.message}`);
    if (checks.length === 0) push("ok", "no plugins installed (`reson plugin add <npm-spec|path>` adds one)");
  } catch (error) {
    const failure = toResonError(error);
    push("fail", `the plugins could not be loaded: ${failure.message}`, failure.hint);
  }
  return checks;
}
