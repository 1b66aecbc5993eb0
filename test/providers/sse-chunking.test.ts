import fc from "fast-check";
import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { ask, PROTOCOLS, providerFor, useFakeServer } from "./harness.js";

const tool = { name: "note", description: "Take a note", parameters: Type.Object({ text: Type.String() }) };

describe.each(PROTOCOLS)("SSE parsing over $name", (protocol) => {
  const fake = useFakeServer();

  it("gives the same result however the byte stream is cut", async () => {
    const provider = await providerFor(protocol, fake.server);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: 48 }), { minLength: 1, maxLength: 8 }),
        fc.string({ minLength: 1, maxLength: 30 }),
        async (byteChunks, note) => {
          const text = `Noted: ${note} — ünïcödé ✓`;
          fake.server.enqueue({ text, toolCalls: [{ name: "note", arguments: { text: note } }], byteChunks });
          const result = await provider.chat(ask("note it", [tool]));
          expect(result.text).toBe(text);
          expect(result.toolCalls.map((call) => call.arguments)).toEqual([{ text: note }]);
          expect(result.stopReason).toBe("toolUse");
        },
      ),
      { numRuns: 25 },
    );
  });
});
