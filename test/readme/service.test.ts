// README "Service": each block run as written.
import { describe } from "vitest";
import { scenario } from "./scenario.js";

describe('README "Service"', () => {
  scenario.todo("reson serve");
  scenario.todo("TOKEN=$(cat ~/.reson/serve-token)");
  scenario.todo("api localhost:7878/runs/01K…/prompts");
});
