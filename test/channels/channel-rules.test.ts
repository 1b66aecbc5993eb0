// The pure rules of channels: who may talk (owner, allowed, pairing, open, groups only when
// mentioned), which texts are commands, how long answers are cut, and that a project's config
// can never define channels.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { chatCommand, decideAccess, pairingCode, splitForPlatform } from "../../src/channels/index.js";
import { loadConfig } from "../../src/config/index.js";
import type { MessageContext, PairingRecord } from "../../src/store/index.js";
import { tempDir } from "../support/cli.js";

const settings = { owner: ["1"], allowFrom: ["2"], dmPolicy: "pairing" as const, groups: ["-100"] };
const direct = (senderId: string): MessageContext => ({
  receivedAt: 0,
  channel: "telegram",
  chatType: "direct",
  chatId: senderId,
  senderId,
});
const group = (senderId: string, mentioned: boolean, chatId = "-100"): MessageContext => ({
  receivedAt: 0,
  channel: "telegram",
  chatType: "group",
  chatId,
  senderId,
  mentioned,
});
const approved: PairingRecord = {
  channel: "telegram",
  senderId: "3",
  senderName: null,
  code: null,
  status: "approved",
  role: "allowed",
  createdAt: 0,
  expiresAt: null,
  approvedAt: 1,
};

describe("who may talk", () => {
  it("the owner and allowed senders talk; a paired sender is allowed; a stranger gets a code", () => {
    expect(decideAccess(settings, direct("1"), undefined)).toEqual({
      kind: "talk",
      standing: "owner",
      mayCommand: true,
    });
    expect(decideAccess(settings, direct("2"), undefined)).toEqual({
      kind: "talk",
      standing: "allowed",
      mayCommand: true,
    });
    expect(decideAccess(settings, direct("3"), approved)).toEqual({
      kind: "talk",
      standing: "allowed",
      mayCommand: true,
    });
    expect(decideAccess(settings, direct("4"), undefined)).toEqual({ kind: "pair" });
    expect(
      decideAccess(settings, direct("4"), { ...approved, senderId: "4", status: "pending", code: "X" }),
    ).toEqual({
      kind: "pair",
    });
  });

  it("an allow-list ignores strangers; open lets anyone talk but not command", () => {
    expect(decideAccess({ ...settings, dmPolicy: "allowlist" }, direct("4"), undefined)).toEqual({
      kind: "ignore",
      note: "not_allowed",
    });
    expect(decideAccess({ ...settings, dmPolicy: "open" }, direct("4"), undefined)).toEqual({
      kind: "talk",
      standing: "anyone",
      mayCommand: false,
    });
  });

  it("groups: only allowed ones, only when mentioned; members who are not allowed cannot command", () => {
    expect(decideAccess(settings, group("1", true, "-999"), undefined)).toEqual({
      kind: "ignore",
      note: "group_not_allowed",
    });
    expect(decideAccess(settings, group("1", false), undefined)).toEqual({
      kind: "ignore",
      note: "not_mentioned",
    });
    expect(decideAccess(settings, group("9", true), undefined)).toEqual({
      kind: "talk",
      standing: "anyone",
      mayCommand: false,
    });
    expect(decideAccess(settings, group("1", true), undefined)).toEqual({
      kind: "talk",
      standing: "owner",
      mayCommand: true,
    });
  });

  it("pairing codes are 8 unambiguous characters", () => {
    for (let i = 0; i < 50; i++) expect(pairingCode()).toMatch(/^[A-HJKMNP-Z2-9]{8}$/);
  });
});

describe("chat commands", () => {
  it("are /new and /stop, with the bot's name in groups; anything else is a task", () => {
    expect(chatCommand("/new")).toBe("new");
    expect(chatCommand(" /stop@reson_bot ")).toBe("stop");
    expect(chatCommand("/new please")).toBeUndefined();
    expect(chatCommand("please /stop")).toBeUndefined();
  });
});

describe("splitting long answers", () => {
  it("keeps every part within the limit and loses nothing but whitespace at the cuts", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme", maxLength: 3000 }),
        fc.integer({ min: 8, max: 500 }),
        (text, max) => {
          const parts = splitForPlatform(text, max);
          for (const part of parts) expect([...part].length).toBeLessThanOrEqual(max);
          expect(parts.join("").replace(/\s+/g, "")).toBe(text.replace(/\s+/g, ""));
        },
      ),
    );
  });

  it("cuts at a paragraph break where there is one", () => {
    const text = `${"a".repeat(60)}\n\n${"b".repeat(60)}`;
    expect(splitForPlatform(text, 100)).toEqual(["a".repeat(60), "b".repeat(60)]);
  });

  it("counts an emoji as one character and never cuts one in half", () => {
    expect(splitForPlatform("😀".repeat(5), 2)).toEqual(["😀😀", "😀😀", "😀"]);
    expect(splitForPlatform(`ab ${"😀".repeat(3)}`, 4)).toEqual(["ab", "😀😀😀"]);
    expect(splitForPlatform("漢字漢字漢字", 4)).toEqual(["漢字漢字", "漢字"]);
  });

  it("gives the same parts as cutting the text's rest again at every cut (the rule it keeps)", () => {
    const piece = fc.oneof(
      fc.constantFrom(" ", "\n", "\n\n", "\t", "\u3000", "\u00a0", "```", "```ts\n", "\n```\n"),
      fc.constantFrom("😀", "👩‍👩‍👧", "🇫🇷", "\ud83d", "\ude00", "é", "e\u0301", "漢字", "かな", "한국어"),
      fc.string({ unit: "grapheme", minLength: 1, maxLength: 12 }),
      fc.integer({ min: 1, max: 300 }).map((n) => "x".repeat(n)),
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 200 }).map((pieces) => pieces.join("")),
        fc.integer({ min: 1, max: 120 }),
        (text, max) => {
          expect(splitForPlatform(text, max)).toEqual(splitByRest(text, max));
        },
      ),
      { numRuns: 500 },
    );
  });
});

/** The cutting rule stated plainly (slow: it copies the rest at every cut). */
function splitByRest(text: string, maxChars: number): string[] {
  const parts: string[] = [];
  let rest = text.trim();
  while ([...rest].length > maxChars) {
    const window = [...rest].slice(0, maxChars).join("");
    const floor = Math.floor(window.length / 2);
    let cut = window.length;
    for (const separator of ["\n\n", "\n", " "]) {
      const at = window.lastIndexOf(separator);
      if (at >= floor) {
        cut = at + separator.length;
        break;
      }
    }
    parts.push(window.slice(0, cut).trimEnd());
    rest = rest.slice(cut).trimStart();
  }
  if (rest.length > 0 || parts.length === 0) parts.push(rest);
  return parts;
}

describe("channels in config", () => {
  it("are ignored, with a warning, in a project's .reson/config.json", async () => {
    const dir = tempDir();
    try {
      mkdirSync(join(dir.path, ".reson"), { recursive: true });
      writeFileSync(
        join(dir.path, ".reson", "config.json"),
        JSON.stringify({ channels: { telegram: { token: "1:x", workspace: "/tmp", dmPolicy: "open" } } }),
      );
      const loaded = await loadConfig({ workspace: dir.path, env: { RESON_HOME: dir.home } });
      expect(loaded.config.channels).toBeUndefined();
      expect(loaded.warnings.join("\n")).toContain('Ignored "channels"');
    } finally {
      dir.remove();
    }
  });
});
