// README "Plugins": each block run as written.
import { describe } from "vitest";
import { scenario } from "./scenario.js";

describe('README "Plugins"', () => {
  scenario.todo("reson plugin add ./my-plugin");
  scenario.todo("reson-plugin-greeter/");
  scenario.todo('{ "name": "greeter", "version": "1.2.3", "description": "Greets people.",');
  scenario.todo('import { definePlugin } from "reson";');
});
