import { describe, expect, it } from "vitest";
import {
  type Behavior,
  createPolicy,
  evaluate,
  type PermissionMode,
  type ToolCall,
} from "../../src/permissions/index.js";
import { cmd, ctx, edit, HOME, policyOf, projectSource, type RuleLists, read, WS, write } from "./support.js";

type Case = [name: string, call: ToolCall, rules: RuleLists, mode: PermissionMode, expected: Behavior];

const cases: Case[] = [
  // Ordering: deny beats ask beats allow whatever the order.
  [
    "deny beats allow",
    cmd("npm test"),
    { allow: ["Bash(npm test)"], deny: ["Bash(npm *)"] },
    "default",
    "deny",
  ],
  ["ask beats allow", cmd("npm test"), { allow: ["Bash(npm *)"], ask: ["Bash(npm test)"] }, "default", "ask"],
  ["allow rule allows", cmd("npm test"), { allow: ["Bash(npm test)"] }, "default", "allow"],
  ["deny beats a read-only command", cmd("cat notes.txt"), { deny: ["Bash(cat *)"] }, "default", "deny"],
  ["deny rule applies in bypass", cmd("git push"), { deny: ["Bash(git push *)"] }, "bypass", "deny"],
  ["bare Bash deny denies every command", cmd("ls"), { deny: ["Bash"] }, "default", "deny"],
  ["reson tool names work too", cmd("make"), { allow: ["execute_command(make)"] }, "default", "allow"],
  // A secret placeholder is a word of the command, not two redirections.
  [
    "a secret placeholder is a word",
    cmd("printf %s <secret>deploy_key</secret> | sha256sum"),
    { allow: ["Bash(printf %s *)", "Bash(sha256sum)"] },
    "default",
    "allow",
  ],
  [
    "a placeholder inside a word is part of it",
    cmd("curl -H token:<secret>gh token</secret> https://api.github.com"),
    { allow: ["Bash(curl *)"] },
    "default",
    "allow",
  ],
  [
    "an unclosed placeholder is still a redirection",
    cmd("cat <secret>x"),
    { allow: ["Bash(cat *)"] },
    "default",
    "ask",
  ],
  // Command specifiers.
  ["exact match is exact", cmd("git stash pop"), { allow: ["Bash(git stash)"] }, "default", "ask"],
  [
    "legacy :* matches the bare command",
    cmd("npm run test"),
    { allow: ["Bash(npm run test:*)"] },
    "default",
    "allow",
  ],
  [
    "legacy :* matches with arguments",
    cmd("npm run test -- --watch"),
    { allow: ["Bash(npm run test:*)"] },
    "default",
    "allow",
  ],
  ["space-star keeps a word boundary", cmd("lsof -i"), { allow: ["Bash(lso *)"] }, "default", "ask"],
  [
    "star matches anywhere",
    cmd("docker compose up -d"),
    { allow: ["Bash(docker * up *)"] },
    "default",
    "allow",
  ],
  // Compound commands: every part must be allowed.
  [
    "compound with an unallowed part asks",
    cmd("npm test && curl x | sh"),
    { allow: ["Bash(npm test)"] },
    "default",
    "ask",
  ],
  [
    "compound with all parts allowed",
    cmd("npm test && ls; git status"),
    { allow: ["Bash(npm test)"] },
    "default",
    "allow",
  ],
  ["a denied part denies the whole", cmd("ls || rm -f x"), { deny: ["Bash(rm *)"] }, "bypass", "deny"],
  ["background & splits", cmd("sleep 1 & npm test"), { allow: ["Bash(npm test)"] }, "default", "ask"],
  ["newline splits", cmd("npm test\nmake"), { allow: ["Bash(npm test)"] }, "default", "ask"],
  ["|& splits", cmd("npm test |& make"), { allow: ["Bash(npm test)", "Bash(make)"] }, "default", "allow"],
  [
    "quoted separators do not split",
    cmd("echo 'a && rm -rf x'"),
    { deny: ["Bash(rm *)"] },
    "default",
    "allow",
  ],
  ["double-quoted separators do not split", cmd('grep "a;b|c" file'), {}, "default", "allow"],
  // Substitutions count as parts.
  ["$( ) parts must be allowed", cmd("echo $(curl evil)"), {}, "default", "ask"],
  ["backtick parts must be allowed", cmd("echo `rm x`"), { deny: ["Bash(rm *)"] }, "default", "deny"],
  ["read-only substitution is fine", cmd("echo $(pwd)"), {}, "default", "allow"],
  [
    "substitution in double quotes",
    cmd('echo "$(whoami) $(git push)"'),
    { deny: ["Bash(git push)"] },
    "bypass",
    "deny",
  ],
  ["process substitution", cmd("diff <(ls a) <(curl x)"), {}, "default", "ask"],
  ["subshell parts", cmd("(cd sub && make)"), { allow: ["Bash(make)"] }, "default", "allow"],
  ["unclosed quote asks even in bypass", cmd("echo 'unterminated"), {}, "bypass", "ask"],
  // Wrappers stripped before matching.
  ["timeout stripped", cmd("timeout 30 npm test"), { allow: ["Bash(npm test)"] }, "default", "allow"],
  ["nice -n stripped", cmd("nice -n 10 npm test"), { allow: ["Bash(npm test)"] }, "default", "allow"],
  ["nohup and time stripped", cmd("nohup time npm test"), { allow: ["Bash(npm test)"] }, "default", "allow"],
  ["env VAR= stripped", cmd("env CI=1 npm test"), { allow: ["Bash(npm test)"] }, "default", "allow"],
  ["leading VAR= stripped", cmd("CI=1 DEBUG=x npm test"), { allow: ["Bash(npm test)"] }, "default", "allow"],
  ["deny sees past wrappers", cmd("timeout 5 env A=1 rm -f x"), { deny: ["Bash(rm *)"] }, "bypass", "deny"],
  ["sudo is not stripped", cmd("sudo npm test"), { allow: ["Bash(npm test)"] }, "default", "ask"],
  ["a dangerous variable blocks auto-allow", cmd("LD_PRELOAD=x.so ls"), {}, "default", "ask"],
  ["bare xargs stripped", cmd("find . -name '*.o' | xargs rm"), { deny: ["Bash(rm *)"] }, "bypass", "deny"],
  // Built-in read-only commands.
  ["ls is read-only", cmd("ls -la src"), {}, "default", "allow"],
  ["git log is read-only", cmd("git log --oneline -5 | head -3"), {}, "default", "allow"],
  ["git -C dir status is read-only", cmd("git -C sub status"), {}, "default", "allow"],
  ["git branch -D is not", cmd("git branch -D topic"), {}, "default", "ask"],
  ["git -c is not", cmd("git -c core.pager=sh status"), {}, "default", "ask"],
  ["find -exec is not", cmd("find . -exec rm {} ;"), {}, "default", "ask"],
  ["find -delete is not", cmd("find build -delete"), {}, "default", "ask"],
  ["sed -n is read-only", cmd("sed -n '1,20p' a.txt"), {}, "default", "allow"],
  ["sed -i is not", cmd("sed -i 's/a/b/' a.txt"), {}, "default", "ask"],
  ["sort -o is not", cmd("sort -o out.txt in.txt"), {}, "default", "ask"],
  ["cd then git is not read-only", cmd("cd ../other && git status"), {}, "default", "ask"],
  ["stderr to stdout is not a write", cmd("ls 2>&1 | wc -l"), {}, "default", "allow"],
  ["redirect to /dev/null is not a write", cmd("grep x file > /dev/null"), {}, "default", "allow"],
  ["redirect makes a write", cmd("echo hi > out.txt"), {}, "default", "ask"],
  ["append redirect makes a write", cmd("echo hi >> out.txt"), {}, "default", "ask"],
  ["tee is a write", cmd("echo hi | tee out.txt"), {}, "default", "ask"],
  ["redirect inside the workspace in acceptEdits", cmd("echo hi > out.txt"), {}, "acceptEdits", "allow"],
  [
    "redirect allowed by an Edit rule",
    cmd("echo hi > logs/a.txt"),
    { allow: ["Edit(logs/**)"] },
    "default",
    "allow",
  ],
  [
    "redirect target denied by Edit deny",
    cmd("ls > secret/x"),
    { deny: ["Edit(secret/**)"] },
    "bypass",
    "deny",
  ],
  // Path rule anchors.
  [
    "relative allow is anchored at the workspace",
    edit("src/a.ts"),
    { allow: ["Edit(src/**)"] },
    "default",
    "allow",
  ],
  [
    "relative allow with a slash is not any-depth",
    edit("pkg/src/a.ts"),
    { allow: ["Edit(src/**)"] },
    "default",
    "ask",
  ],
  ["relative deny matches at any depth", edit("pkg/src/a.ts"), { deny: ["Edit(src/**)"] }, "bypass", "deny"],
  [
    "slash-less pattern matches at any depth",
    edit("a/b/c.key"),
    { allow: ["Edit(*.key)"] },
    "default",
    "allow",
  ],
  ["./ is anchored", edit("x/README.md"), { allow: ["Edit(./README.md)"] }, "default", "ask"],
  [
    "/path is relative to the settings root",
    edit("docs/a.md"),
    { allow: ["Edit(/docs/**)"] },
    "default",
    "allow",
  ],
  ["//path is absolute", edit("/tmp/scratch/a"), { allow: ["Edit(//tmp/scratch/**)"] }, "default", "allow"],
  ["~/path is from home", edit(`${HOME}/notes/a.md`), { allow: ["Edit(~/notes/**)"] }, "default", "allow"],
  ["Read deny blocks reading", read("secrets/k"), { deny: ["Read(secrets/**)"] }, "default", "deny"],
  ["Read deny also blocks writing", write("secrets/k"), { deny: ["Read(secrets/**)"] }, "bypass", "deny"],
  [
    "Read path rules cover grep",
    { tool: "grep", arguments: { pattern: "x", path: "secrets" } },
    { deny: ["Read(secrets)"] },
    "default",
    "deny",
  ],
  ["Edit rule covers write_file", write("src/new.ts"), { allow: ["Edit(src/**)"] }, "default", "allow"],
  [
    "a folder pattern covers its contents",
    read("vendor/lib/x.js"),
    { ask: ["Read(vendor)"] },
    "default",
    "ask",
  ],
  // Protected paths.
  ["write to .git asks in bypass", write(".git/config"), {}, "bypass", "ask"],
  ["write to .reson asks in acceptEdits", edit(".reson/settings.json"), {}, "acceptEdits", "ask"],
  ["write to .env asks even when allowed", write(".env"), { allow: ["Edit(.env)"] }, "default", "ask"],
  ["write to .env.local asks", write("app/.env.local"), {}, "bypass", "ask"],
  ["write to ~/.bashrc asks", write(`${HOME}/.bashrc`), {}, "bypass", "ask"],
  ["redirect into .zshrc asks in bypass", cmd("echo alias >> ~/.zshrc"), {}, "bypass", "ask"],
  ["tee into .ssh asks in bypass", cmd("echo k | tee -a ~/.ssh/authorized_keys"), {}, "bypass", "ask"],
  ["cp onto .npmrc asks in bypass", cmd("cp x .npmrc"), {}, "bypass", "ask"],
  ["protected write in dontAsk is denied", write(".git/HEAD"), {}, "dontAsk", "deny"],
  ["reading .git is fine", read(".git/config"), {}, "default", "allow"],
  // Critical rm.
  ["rm -rf / asks in bypass", cmd("rm -rf /"), { allow: ["Bash(rm *)"] }, "bypass", "ask"],
  ["rm -fr ~ asks", cmd("rm -fr ~"), { allow: ["Bash(rm *)"] }, "bypass", "ask"],
  ["rm -r $HOME asks", cmd("rm -r $HOME"), {}, "bypass", "ask"],
  ["rm --recursive . asks", cmd("rm --recursive --force ."), {}, "bypass", "ask"],
  ["rm -Rf * asks", cmd("rm -Rf *"), {}, "bypass", "ask"],
  ["rm -rf .. asks", cmd("rm -rf ../"), {}, "bypass", "ask"],
  ["rm -rf ../sibling climbs out", cmd("rm -rf ../sibling"), {}, "bypass", "ask"],
  ["rm -rf the workspace by path asks", cmd(`rm -rf ${WS}`), {}, "bypass", "ask"],
  ["rm -rf /usr asks", cmd("rm -rf /usr"), {}, "bypass", "ask"],
  ["rm -rf /* asks", cmd("rm -rf /*"), {}, "bypass", "ask"],
  ["rm -rf $DIR/* asks", cmd("rm -rf $DIR/*"), {}, "bypass", "ask"],
  ["sudo rm -rf / asks", cmd("sudo rm -rf /"), { allow: ["Bash(sudo *)"] }, "bypass", "ask"],
  ["cd / then rm -rf * asks", cmd("cd / && rm -rf *"), { allow: ["Bash(rm *)"] }, "bypass", "ask"],
  ["find / -delete asks", cmd("find / -delete"), {}, "bypass", "ask"],
  [
    "rm -rf build is an ordinary rule matter",
    cmd("rm -rf build"),
    { allow: ["Bash(rm -rf build)"] },
    "default",
    "allow",
  ],
  ["rm -rf *.o is not critical", cmd("rm -rf *.o"), {}, "bypass", "allow"],
  ["critical rm in dontAsk is denied", cmd("rm -rf ~"), { allow: ["Bash(rm *)"] }, "dontAsk", "deny"],
  // Modes.
  ["default: reads free", read("a.txt"), {}, "default", "allow"],
  ["default: writes ask", write("a.txt"), {}, "default", "ask"],
  ["default: commands ask", cmd("make"), {}, "default", "ask"],
  ["acceptEdits: edits inside free", edit("src/a.ts"), {}, "acceptEdits", "allow"],
  ["acceptEdits: edits outside ask", edit("/etc/hosts"), {}, "acceptEdits", "ask"],
  ["acceptEdits: commands ask", cmd("make"), {}, "acceptEdits", "ask"],
  ["dontAsk: unallowed is denied", cmd("make"), {}, "dontAsk", "deny"],
  ["dontAsk: allowed is allowed", cmd("make"), { allow: ["Bash(make)"] }, "dontAsk", "allow"],
  ["dontAsk: ask rules deny", read("a"), { ask: ["Read"] }, "dontAsk", "deny"],
  ["bypass: anything else allowed", cmd("curl x | sh"), {}, "bypass", "allow"],
  ["bypass: explicit ask still asks", cmd("git push"), { ask: ["Bash(git push)"] }, "bypass", "ask"],
  ["goal is allowed in plan", { tool: "goal", arguments: { action: "add" } }, {}, "plan", "allow"],
  ["goal is allowed in dontAsk", { tool: "goal", arguments: {} }, {}, "dontAsk", "allow"],
  [
    "ask_human is allowed in plan",
    { tool: "ask_human", arguments: { question: "Which?" } },
    {},
    "plan",
    "allow",
  ],
  [
    "ask_human is allowed in dontAsk",
    { tool: "ask_human", arguments: { question: "Which?" } },
    {},
    "dontAsk",
    "allow",
  ],
  [
    "Claude's AskUserQuestion rule covers ask_human",
    { tool: "ask_human", arguments: { question: "Which?" } },
    { deny: ["AskUserQuestion"] },
    "default",
    "deny",
  ],
  ["unknown tools ask by default", { tool: "mcp__x__y", arguments: {} }, {}, "default", "ask"],
  ["mcp tool-name glob deny", { tool: "mcp__x__y", arguments: {} }, { deny: ["mcp__*"] }, "bypass", "deny"],
  ["plan: read-only command allowed", cmd("git diff HEAD~1"), {}, "plan", "allow"],
  ["plan: read-only pipeline allowed", cmd("grep -rn TODO src | head"), {}, "plan", "allow"],
  ["plan: ask rule on a read still asks", cmd("cat x"), { ask: ["Bash(cat *)"] }, "plan", "ask"],
];

const planWrites: [string, ToolCall][] = [
  ["write_file", write("a.txt")],
  ["edit_file", edit("a.txt")],
  ["> redirect", cmd("echo x > a.txt")],
  [">> redirect", cmd("ls >> a.txt")],
  ["&> redirect", cmd("ls &> a.txt")],
  ["tee", cmd("echo x | tee a.txt")],
  ["sed -i", cmd("sed -i 's/a/b/' a.txt")],
  ["rm", cmd("rm a.txt")],
  ["mv", cmd("mv a.txt b.txt")],
  ["cp", cmd("cp a.txt b.txt")],
  ["touch", cmd("touch a.txt")],
  ["mkdir", cmd("mkdir d")],
  ["git commit", cmd("git commit -am wip")],
  ["git commit --amend", cmd("git commit --amend --no-edit")],
  ["git checkout", cmd("git checkout -- a.txt")],
  ["git stash", cmd("git stash")],
  ["npm install", cmd("npm install left-pad")],
  ["find -delete", cmd("find . -name '*.tmp' -delete")],
  ["subshell write", cmd("echo $(rm a.txt)")],
  ["python", cmd('python3 -c \'open("a","w")\'')],
  ["unparseable", cmd("echo 'x")],
  ["unknown tool", { tool: "mcp__fs__write", arguments: {} }],
];

describe("permission rule engine", () => {
  it.each(cases)("%s", (_name, call, rules, mode, expected) => {
    const decision = evaluate(call, policyOf(rules), ctx(mode));
    expect(decision.behavior, decision.reason).toBe(expected);
  });

  it.each(planWrites)("plan mode refuses %s even when a rule allows it", (_name, call) => {
    const decision = evaluate(
      call,
      policyOf({ allow: ["Bash", "Edit", "Write", "mcp__fs__write"] }),
      ctx("plan"),
    );
    expect(decision.behavior, decision.reason).toBe("deny");
  });

  it("a deny in the user file beats an allow from flags", () => {
    const policy = createPolicy([
      { source: { kind: "flags", root: WS }, permissions: { allow: ["Bash(git push *)"] } },
      {
        source: { kind: "user", file: "/home/ann/.reson/settings.json", root: "/home/ann/.reson" },
        permissions: { deny: ["Bash(git push *)"] },
      },
    ]);
    const decision = evaluate(cmd("git push origin main"), policy, ctx("default"));
    expect(decision).toMatchObject({
      behavior: "deny",
      decidedBy: "rule",
      rule: { text: "Bash(git push *)", list: "deny", source: "/home/ann/.reson/settings.json" },
    });
  });

  it("records the rule, its file and line that decided", () => {
    const text = '{\n  "permissions": {\n    "allow": [\n      "Bash(npm test)"\n    ]\n  }\n}\n';
    const policy = createPolicy([{ ...projectSource({ allow: ["Bash(npm test)"] }), text }]);
    const decision = evaluate(cmd("npm test"), policy, ctx());
    expect(decision.rule).toEqual({
      text: "Bash(npm test)",
      list: "allow",
      source: `${WS}/.reson/settings.json:4`,
    });
    expect(decision.reason).toContain("settings.json:4");
  });

  it("records the mode default when no rule matched", () => {
    const decision = evaluate(cmd("make"), policyOf(), ctx("acceptEdits"));
    expect(decision).toMatchObject({ behavior: "ask", decidedBy: "mode", modeDefault: "acceptEdits" });
    expect(decision.rule).toBeUndefined();
  });

  it("reports a decision for every part of a compound command", () => {
    const decision = evaluate(
      cmd("ls && npm test > out.txt"),
      policyOf({ allow: ["Bash(npm test)"] }),
      ctx(),
    );
    expect(decision.parts?.map((p) => [p.part, p.behavior])).toEqual([
      ["ls", "allow"],
      ["npm test", "allow"],
      ["> out.txt", "ask"],
    ]);
    expect(decision.behavior).toBe("ask");
  });

  it("names the guard that forced a question", () => {
    const decision = evaluate(cmd("rm -rf ~"), policyOf(), ctx("bypass"));
    expect(decision.decidedBy).toBe("guard");
    expect(decision.reason).toMatch(/critical path.*home/);
  });

  it("the mode in the context overrides the policy's mode", () => {
    const policy = createPolicy([
      projectSource({}),
      { source: { kind: "flags", root: WS }, permissions: { defaultMode: "bypass" } },
    ]);
    expect(evaluate(write("a"), policy, { workspaceRoot: WS, userHome: HOME }).behavior).toBe("allow");
    expect(evaluate(write("a"), policy, { workspaceRoot: WS, userHome: HOME, mode: "plan" }).behavior).toBe(
      "deny",
    );
  });

  it("extra read-only tools from the caller are free and offered in plan", () => {
    const decision = evaluate({ tool: "ask_human", arguments: {} }, policyOf(), {
      ...ctx("plan"),
      readOnlyTools: ["ask_human"],
    });
    expect(decision.behavior).toBe("allow");
  });
});
