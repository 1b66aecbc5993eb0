// README's configuration files: each block run as written.
import { describe } from "vitest";
import { scenario } from "./scenario.js";

describe("README's configuration files", () => {
  scenario.todo('"provider": "anthropic",');
  scenario.todo('"reviewer": {');
  scenario.todo(
    '{ "mode": "explore", "branches": ["Where are retries configured?", "Which callers ignore the retry result?"],',
  );
  scenario.todo(
    '{ "permissions": { "allow": ["Bash(npm test:*)", "Bash(git diff:*)"], "deny": ["Read(.env)"], "defaultMode": "acceptEdits" } }',
  );
  scenario.todo('"workspace:/home/me/projects/*": { "deploy_key": { "env": "DEPLOY_KEY" } },');
});
