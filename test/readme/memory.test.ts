// README "Memory and experiences": what reson remembered and learnt from earlier runs, listed,
// searched, edited, forgotten, confirmed and retired, as written in a user's shell.
//
// Harness variables: RESON_PROVIDER=openai-compatible, RESON_BASE_URL and RESON_MODEL point at
// the fake model server, beside cleanEnv's (test/support/cli.ts). The earlier run that left
// something to remember and a rule is the test's own, with reflection asked for
// (RESON_MEMORY_REFLECT=always on its command line).
import { describe, expect } from "vitest";
import type { RecordedRequest } from "../support/fake-model-server.js";
import { localModel } from "./readme-user.js";
import { scenario, useModel, useShell, useUser } from "./scenario.js";

const isReflection = (request: RecordedRequest) =>
  JSON.stringify(request.body).includes("keep a short list of reusable rules");

describe("README: Memory and experiences", () => {
  scenario("reson memory list", async (block) => {
    const model = await useModel({
      respond: (request) =>
        isReflection(request)
          ? {
              text: "ADD: WHEN deploying to staging THEN connect the VPN before running the script. KEYS: staging; deploy; VPN",
            }
          : { text: "Run scripts/deploy-staging.sh once the VPN is up." },
    });
    const user = useUser(localModel(model));
    const shell = useShell(block, user);
    await shell.probe('RESON_MEMORY_REFLECT=always reson run "how do we deploy to staging?"');
    const idOf = (listing: string, text: string) =>
      new RegExp(`^(\\w{26})\\s.*${text}`, "m").exec(listing)?.[1] ?? "";

    const list = await shell.run("reson memory list");
    const question = idOf(list.stdout, "how do we deploy to staging\\?");
    const answer = idOf(list.stdout, "Run scripts/deploy-staging.sh");
    expect([question, answer], list.stdout).not.toContain("");
    const found = await shell.run("reson memory search staging deploy");
    expect(found.stdout).toContain(question);
    shell.replace("<id>", answer);
    const edited = await shell.run("reson memory edit <id>");
    // The corrected item replaces the old one under a new id.
    const [, corrected] = /^Replaced \w+ with (\w+)\.$/m.exec(edited.stdout) ?? [];
    expect((await shell.probe("reson memory search corrected")).stdout).toMatch(
      new RegExp(`^${corrected}\\s.*corrected text`, "m"),
    );
    shell.replace("<id...>", `${question} ${corrected}`);
    const forgot = await shell.run("reson memory forget <id...>");
    expect(forgot.stdout).toContain("Forgot 2 memories");
    expect((await shell.probe("reson memory list")).stdout).not.toContain(question);

    const rules = await shell.runBoth("reson experiences list [--status active]");
    const rule = idOf(rules.without.stdout, "candidate\\s.*connect the VPN");
    expect(rule, rules.without.stdout).not.toBe("");
    expect(rules.with.stdout).toContain("No active experiences");
    // From here on, <id> is the rule.
    shell.replace(answer, rule);
    const shown = await shell.run("reson experiences show <id>");
    expect(shown.stdout).toContain("rule: connect the VPN before running the script.");
    expect(shown.stdout).toContain("keys: staging; deploy; VPN");
    await shell.run("reson experiences confirm <id>");
    expect((await shell.probe("reson experiences list --status active")).stdout).toContain(rule);
    await shell.run("reson experiences retire <id>");
    shell.end();
    expect((await shell.probe("reson experiences list --status retired")).stdout).toContain(rule);
  });
});
