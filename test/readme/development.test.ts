// README "Development": each block run as written.
import { describe } from "vitest";
import { scenario } from "./scenario.js";

describe('README "Development"', () => {
  scenario.todo("npm ci");
  scenario.todo("Skipped for missing dependencies (they run under CI=true, where a missing one fails):");
});
