// README "Install": each block run as written.
import { describe } from "vitest";
import { scenario } from "./scenario.js";

describe('README "Install"', () => {
  scenario.todo("git clone <this repository> reson && cd reson");
});
