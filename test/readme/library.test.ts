// README "As a library": each block run as written.
import { describe } from "vitest";
import { scenario } from "./scenario.js";

describe('README "As a library"', () => {
  scenario.todo('import { createAgent } from "reson";');
});
