import { execFileSync } from "node:child_process";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SecretVault } from "../../src/secrets/index.js";

const ROOT = "/home/me/project";

function vaultWith(secrets: Record<string, string>): SecretVault {
  return SecretVault.fromDocument({ [`workspace:${ROOT}`]: secrets }, { env: {} });
}

function runBash(command: string, env: Record<string, string>): string {
  return execFileSync("bash", ["-c", command], {
    env: { PATH: process.env.PATH ?? "", ...env },
    encoding: "utf8",
  });
}

/**
 * Substitutes `template` once per value (as secret s0, s1, …) and runs all of it in one bash,
 * checking each command's text on the way; returns what each printed.
 */
function runEach(template: string, values: string[]): string[] {
  const secrets = Object.fromEntries(values.map((value, n) => [`s${n}`, value]));
  const vault = vaultWith(secrets);
  const env: Record<string, string> = {};
  const commands = values.map((value, n) => {
    const result = vault.substituteCommand(
      template.replaceAll("<secret>s</secret>", `<secret>s${n}</secret>`),
      ROOT,
    );
    expect(result.used).toEqual([`s${n}`]);
    expect(result.command).not.toContain(value);
    expect(result.command).not.toContain("<secret>");
    Object.assign(env, result.env);
    return result.command;
  });
  expect(Object.values(env)).toEqual(values);
  return runBash(commands.join("\nprintf '\\0'\n"), env).split("\0");
}

const NASTY_VALUES = [
  "with some spaces  inside",
  `quotes ' and " both`,
  `dollar $HOME and \${PATH} and $(id)`,
  "backticks `id` here",
  "multi\nline\nvalue",
  "back\\slash \\n \\' \\\" end\\",
  "-n looks like a flag",
  "glob * ? [a] ~ {a,b}",
  "semi; && || | > < & #hash",
  "üñíçødé and 🙂 emoji",
  "'\"'\"'\"'\"'\"",
];

// [shell text around the placeholder, what bash prints for a value V]
const CONTEXTS: [string, (value: string) => string][] = [
  ["printf %s <secret>s</secret>", (v) => v],
  ['printf %s "pre <secret>s</secret> post"', (v) => `pre ${v} post`],
  ["printf %s 'pre <secret>s</secret> post'", (v) => `pre ${v} post`],
  ["printf %s $'pre\\t<secret>s</secret>\\tpost'", (v) => `pre\t${v}\tpost`],
  ['printf %s $"pre <secret>s</secret>"', (v) => `pre ${v}`],
  ["printf %s pre<secret>s</secret>post", (v) => `pre${v}post`],
  ['printf %s "$(printf %s <secret>s</secret>)"', (v) => v.replace(/\n+$/, "")],
  ['printf %s "$(printf %s "(<secret>s</secret>)")"', (v) => `(${v})`],
  ["printf %s \"`printf %s '<secret>s</secret>'`\"", (v) => v.replace(/\n+$/, "")],
  ["cat <<EOF\npre <secret>s</secret> post\nEOF", (v) => `pre ${v} post\n`],
  ["cat <<-END\n\t<secret>s</secret>\n\tEND\nprintf done", (v) => `${v}\ndone`],
  ["# it's a comment with a quote\nprintf %s <secret>s</secret>", (v) => v],
  ["f() { printf '%s' \"$1\"; }; f <secret>s</secret>", (v) => v],
];

describe("SecretVault.substituteCommand", () => {
  for (const [template, expected] of CONTEXTS) {
    it(`passes the value through the environment: ${JSON.stringify(template)}`, () => {
      expect(runEach(template, NASTY_VALUES)).toEqual(NASTY_VALUES.map(expected));
    });
  }

  it("works for any value in any quoting context (property)", () => {
    const value = fc
      .string({
        unit: fc.constantFrom(..."ab '\"$`\\\n\t;|&()<>*?[]{}~#!%-=éé🙂"),
        minLength: 8,
        maxLength: 30,
      })
      .filter((text) => text.length >= 8);
    fc.assert(
      fc.property(
        fc.uniqueArray(value, { minLength: 1, maxLength: 8 }),
        fc.constantFrom(...CONTEXTS),
        (values, [template, expected]) => {
          expect(runEach(template, values)).toEqual(values.map(expected));
        },
      ),
      { numRuns: 40 },
    );
    // Each run starts shells: on a loaded machine the 40 runs take longer than the default.
  }, 120_000);

  it("gives names that map to the same variable name distinct variables", () => {
    const vault = vaultWith({ "a.b": "first-value-1234", a_b: "second-value-5678" });
    const result = vault.substituteCommand("printf '%s|%s' <secret>a.b</secret> <secret>a_b</secret>", ROOT);
    expect(Object.keys(result.env)).toEqual(["RESON_SECRET_A_B", "RESON_SECRET_A_B_2"]);
    expect(runBash(result.command, result.env)).toBe("first-value-1234|second-value-5678");
  });

  it("uses one variable for a name that appears twice", () => {
    const result = vaultWith({ s: "the-value-1234" }).substituteCommand(
      "printf %s <secret>s</secret> '<secret>s</secret>'",
      ROOT,
    );
    expect(result.env).toEqual({ RESON_SECRET_S: "the-value-1234" });
    expect(runBash(result.command, result.env)).toBe("the-value-1234the-value-1234");
  });

  it("reports missing and out-of-scope placeholders and leaves them in the text", () => {
    const vault = SecretVault.fromDocument(
      {
        "workspace:/elsewhere": { other: "other-value-1234" },
        [`workspace:${ROOT}`]: { s: "the-value-1234" },
      },
      { env: {} },
    );
    const result = vault.substituteCommand(
      "x <secret>nope</secret> <secret>other</secret> <secret>s</secret>",
      ROOT,
    );
    expect(result.missing).toEqual(["nope"]);
    expect(result.outOfScope).toEqual(["other"]);
    expect(result.used).toEqual(["s"]);
    expect(result.command).toBe(`x <secret>nope</secret> <secret>other</secret> "\${RESON_SECRET_S}"`);
    expect(result.env).toEqual({ RESON_SECRET_S: "the-value-1234" });
  });

  it("refuses to substitute inside a quoted here-document, where bash expands nothing", () => {
    const command = "cat <<'EOF'\ntoken=<secret>s</secret>\nEOF";
    const result = vaultWith({ s: "the-value-1234" }).substituteCommand(command, ROOT);
    expect(result.unexpandable).toEqual(["s"]);
    expect(result.used).toEqual([]);
    expect(result.command).toBe(command);
    expect(result.env).toEqual({});
  });

  it("leaves a placeholder in a comment alone", () => {
    const result = vaultWith({ s: "the-value-1234" }).substituteCommand("true # <secret>s</secret>", ROOT);
    expect(result).toMatchObject({ command: "true # <secret>s</secret>", used: [], env: {} });
  });

  it("never puts the value into the command text, whatever the text (property)", () => {
    const secret = "Zq9!unique-secret-value";
    const vault = vaultWith({ s: secret });
    fc.assert(
      fc.property(
        fc.array(
          fc.constantFrom("'", '"', "$'", "$(", ")", "`", "\\", "#", " ", "\n", "<<EOF\n", "EOF\n", "x"),
          {
            maxLength: 12,
          },
        ),
        fc.array(fc.constantFrom("'", '"', "`", "\\", " ", "\n", "y"), { maxLength: 6 }),
        (before, after) => {
          const result = vault.substituteCommand(
            `${before.join("")}<secret>s</secret>${after.join("")}`,
            ROOT,
          );
          expect(result.command).not.toContain(secret);
        },
      ),
    );
  });
});
