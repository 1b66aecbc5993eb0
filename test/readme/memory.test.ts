// README "Memory and experiences": each block run as written.
import { describe } from "vitest";
import { scenario } from "./scenario.js";

describe('README "Memory and experiences"', () => {
  scenario.todo("reson memory list");
});
