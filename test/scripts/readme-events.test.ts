// README's event table is the event schema's: every type `reson run --json` can print, with its
// own fields, in the schema's order (scripts/readme-events.mjs writes it).
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a build script in plain JavaScript, without declarations
import { BEGIN, END, eventTable, withEventTable } from "../../scripts/readme-events.mjs";
import { ResonEventSchema } from "../../src/core/events.js";

const README = resolve(import.meta.dirname, "../../README.md");

describe("README's event table", () => {
  it("is what the event schema says (else: npm run build && npm run readme:events)", () => {
    const readme = readFileSync(README, "utf8");
    expect(withEventTable(readme, eventTable(ResonEventSchema))).toBe(readme);
  });

  it("names every event type and every field of each", () => {
    const readme = readFileSync(README, "utf8");
    const block = readme.slice(readme.indexOf(BEGIN), readme.indexOf(END));
    for (const event of ResonEventSchema.anyOf) {
      const type = event.properties.type.const;
      const row = (block as string).split("\n").find((line) => line.startsWith(`| \`${type}\` |`));
      expect(row, type).toBeDefined();
      for (const name of Object.keys(event.properties)) {
        if (["type", "runId", "step", "ts"].includes(name)) continue;
        expect(row).toContain(`\`${name}\``);
      }
    }
    expect(block).toContain("`context_usage`");
    expect(block).toContain("`goal_changed`");
  });
});
