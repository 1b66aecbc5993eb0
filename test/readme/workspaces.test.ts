// README "Workspaces": each block run as written.
import { describe } from "vitest";
import { scenario } from "./scenario.js";

describe('README "Workspaces"', () => {
  scenario.todo("reson workspace create notes --template notes");
  scenario.todo('eval "$(reson workspace use notes)"');
  scenario.todo("reson workspace settings notes model=claude-haiku-4-5 memory.enabled=false");
});
