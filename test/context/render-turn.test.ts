// Rendering stored turns is a pure function: the same record gives the same bytes every
// time, envelope facts are kept apart from the raw content, and terminal turns stay raw.
import { describe, expect, it } from "vitest";
import { envelopeLine, renderHistory, turnsToHistory, turnToMessage } from "../../src/context/index.js";
import type { TurnRecord } from "../../src/store/index.js";

const base: TurnRecord = {
  id: "01JQ0000000000000000000000",
  sessionId: "01JQ0000000000000000000001",
  seq: 0,
  role: "user",
  content: { role: "user", content: "fix the build", timestamp: 1_780_000_000_000 },
  envelope: { receivedAt: 1_780_000_000_000, channel: "cli", chatType: "direct" },
  traceId: "01JQ0000000000000000000002",
  step: 0,
  createdAt: 1_780_000_000_000,
};

describe("turn rendering", () => {
  it("a terminal turn renders to its raw content, unchanged", () => {
    expect(turnToMessage(base)).toEqual({
      role: "user",
      content: "fix the build",
      timestamp: 1_780_000_000_000,
    });
  });

  it("a turn from another channel gets one envelope line before its raw content", () => {
    const turn: TurnRecord = {
      ...base,
      envelope: { receivedAt: 1_780_000_000_000, channel: "slack", chatType: "group", senderName: "Ada" },
    };
    expect(turnToMessage(turn)).toEqual({
      role: "user",
      content: "[slack group · Ada · 2026-05-28T20:26:40.000Z]\nfix the build",
      timestamp: 1_780_000_000_000,
    });
    expect(envelopeLine({ receivedAt: 0, channel: "http", chatType: "direct" })).toBe(
      "[http · user · 1970-01-01T00:00:00.000Z]",
    );
  });

  it("renders the same bytes every time and never changes the stored record", () => {
    const turn: TurnRecord = { ...base, envelope: { ...base.envelope!, channel: "http", senderId: "u1" } };
    const frozen = JSON.stringify(turn);
    const first = JSON.stringify(turnToMessage(turn));
    for (let i = 0; i < 5; i++) expect(JSON.stringify(turnToMessage(turn))).toBe(first);
    expect(JSON.stringify(turn)).toBe(frozen);
  });

  it("tool results of earlier runs render as their long-term line; the current run's stay full once", () => {
    const result = (traceId: string, step: number): TurnRecord => ({
      ...base,
      role: "toolResult",
      traceId,
      step,
      envelope: null,
      content: {
        role: "toolResult",
        toolCallId: "c1",
        toolName: "fetch",
        content: [{ type: "text", text: "FULL" }],
        isError: false,
        timestamp: 0,
        details: { ok: true, laterText: "short" },
      },
    });
    const old = turnsToHistory([result("OLD", 3)], "NEW");
    expect(JSON.stringify(renderHistory(old, 1))).toContain("short");
    const current = turnsToHistory([result("NEW", 3)], "NEW");
    expect(JSON.stringify(renderHistory(current, 4))).toContain("FULL");
    expect(JSON.stringify(renderHistory(current, 5))).toContain("short");
    // The short form is the same object every call, so caches keyed by identity keep hitting.
    expect(renderHistory(current, 6)[0]).toBe(renderHistory(current, 7)[0]);
  });
});
