import { resolve } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { evaluate, PERMISSION_MODES } from "../../src/permissions/index.js";
import { cmd, ctx, edit, policyOf, WS, write } from "./support.js";

const policy = policyOf({
  allow: ["Bash(npm test)", "Bash(make build:*)", "Bash(cargo check *)"],
  deny: ["Bash(curl *)", "Bash(git push *)"],
});
const allowed = [
  "npm test",
  "make build",
  "make build --release",
  "cargo check -q",
  "ls -la",
  "git status",
  "cat a.txt",
];
const unallowed = ["make install", "python3 x.py", "npm publish", "git commit -m x", "rm -f a"];
const denied = ["curl https://x", "git push origin main", "git push"];
const separators = [" && ", " || ", "; ", " | ", " & ", "\n", " |& "];

const part = (kind: "allowed" | "unallowed" | "denied") =>
  fc
    .constantFrom(...(kind === "allowed" ? allowed : kind === "unallowed" ? unallowed : denied))
    .map((text) => ({ kind, text }));

const commandLine = fc
  .tuple(
    fc.array(fc.oneof(part("allowed"), part("unallowed"), part("denied")), { minLength: 1, maxLength: 6 }),
    fc.array(fc.constantFrom(...separators), { minLength: 6, maxLength: 6 }),
  )
  .map(([parts, seps]) => ({
    parts,
    line: parts.map((p, i) => (i === 0 ? p.text : seps[i - 1] + p.text)).join(""),
  }));

describe("permission properties", () => {
  it("a compound command is allowed iff every part is, and denied when any part is", () => {
    fc.assert(
      fc.property(commandLine, ({ parts, line }) => {
        const decision = evaluate(cmd(line), policy, ctx("default"));
        if (parts.some((p) => p.kind === "denied")) return decision.behavior === "deny";
        if (parts.every((p) => p.kind === "allowed")) return decision.behavior === "allow";
        return decision.behavior === "ask";
      }),
      { numRuns: 300 },
    );
  });

  it("wrapping every part in a wrapper changes nothing", () => {
    fc.assert(
      fc.property(
        commandLine,
        fc.constantFrom("timeout 10 ", "nice -n 5 ", "nohup ", "env CI=1 ", "CI=1 "),
        ({ line, parts }, wrapper) => {
          const wrapped = parts.map((p) => wrapper + p.text).join(" && ");
          const plain = parts.map((p) => p.text).join(" && ");
          return (
            evaluate(cmd(wrapped), policy, ctx()).behavior === evaluate(cmd(plain), policy, ctx()).behavior &&
            line.length > 0
          );
        },
      ),
      { numRuns: 100 },
    );
  });

  it("never throws and always answers, on arbitrary strings in every mode", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.string({ unit: fc.constantFrom(..."ab $()`'\"\\|&;<>\n*~/.-=#{}") })),
        fc.constantFrom(...PERMISSION_MODES),
        (line, mode) => {
          const decision = evaluate(cmd(line), policy, ctx(mode));
          expect(["allow", "ask", "deny"]).toContain(decision.behavior);
          expect(decision.reason.length).toBeGreaterThan(0);
          const other = evaluate({ tool: "write_file", arguments: { path: line } }, policy, ctx(mode));
          expect(["allow", "ask", "deny"]).toContain(other.behavior);
        },
      ),
      { numRuns: 400 },
    );
  });

  it("a path ending in backslashes gets an answer in every mode (picomatch alone never returned)", () => {
    for (const mode of PERMISSION_MODES) {
      for (const path of ["a/\\\\", "a/\\\\\\\\", `${WS}/x/\\\\\\`]) {
        expect(["allow", "ask", "deny"]).toContain(evaluate(write(path), policy, ctx(mode)).behavior);
        expect(["allow", "ask", "deny"]).toContain(evaluate(edit(path), policy, ctx(mode)).behavior);
      }
    }
  });

  it("plan mode never allows a command containing an output redirection to a file", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...allowed),
        fc.constantFrom(">", ">>", "&>", ">|", "1>", "2>"),
        fc.stringMatching(/^[a-z][a-z0-9_./-]{0,12}$/),
        (text, op, target) =>
          evaluate(cmd(`${text} ${op} ${target}`), policy, ctx("plan")).behavior === "deny",
      ),
      { numRuns: 200 },
    );
  });

  it("acceptEdits allows an edit of any path inside the workspace, whatever its names look like, and none that climbs out", () => {
    const name = fc.oneof(
      fc.constantFrom("..foo", "...", "..", ".", "..bar.txt", "foo..", ".. x", "src", "a.txt"),
      // Letters that spell no protected name (.git, .reson).
      fc.stringMatching(/^[a-f.]{1,5}$/),
    );
    fc.assert(
      fc.property(fc.array(name, { minLength: 1, maxLength: 6 }), fc.boolean(), (names, absolute) => {
        const path = (absolute ? `${WS}/` : "") + names.join("/");
        const resolved = resolve(WS, path);
        const climbs = resolved !== WS && !resolved.startsWith(`${WS}/`);
        for (const call of [write(path), edit(path)]) {
          const decision = evaluate(call, policyOf(), ctx("acceptEdits"));
          expect(decision.behavior).toBe(climbs ? "ask" : "allow");
        }
      }),
      { numRuns: 400 },
    );
  });
});
