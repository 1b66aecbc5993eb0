// README "Browser": each block run as written.
import { describe } from "vitest";
import { scenario } from "./scenario.js";

describe('README "Browser"', () => {
  scenario.todo('{ "browser": { "allowPrivateHosts": ["127.0.0.1"], "headless": true } }');
});
