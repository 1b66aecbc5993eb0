// The cost of reflection per run, in input and output tokens: the request reson sends to the
// summary model after a run (system prompt, task, known rules, the run's transcript cut to
// 16,000 characters head and tail) for runs of 3, 10, 30 and 100 steps with realistic tool
// outputs, and a typical answer of two operations. Tokens by reson's estimator (within ~5 %
// of o200k, see token-estimate.mjs). Run `npm run build` first.
import { REFLECTION_TRANSCRIPT_CHARS } from "../dist/agent/learning.js";
import { keepHeadAndTail, transcriptOf } from "../dist/context/index.js";
import { estimateTokens } from "../dist/core/tokens.js";
import { REFLECTION_SYSTEM_PROMPT, reflectionRequest } from "../dist/memory/index.js";

function output(step) {
  const lines = [];
  for (let i = 0; i < 40; i++)
    lines.push(
      `src/module${step}/file${i}.ts:${i + 1}: export function handler${i}(req) { return process(req, ${i}); }`,
    );
  return lines.join("\n");
}

function entries(steps) {
  const list = [
    {
      message: {
        role: "user",
        content: "Fix the failing tests in the payment module and explain the cause.",
      },
    },
  ];
  for (let step = 1; step <= steps; step++) {
    list.push({
      message: {
        role: "assistant",
        content: [
          { type: "text", text: `Step ${step}: looking at the payment module.` },
          {
            type: "toolCall",
            id: `c${step}`,
            name: step % 3 === 0 ? "execute_command" : "grep",
            arguments: { pattern: "handler", command: "npm test" },
          },
        ],
      },
    });
    list.push({
      message: {
        role: "toolResult",
        toolCallId: `c${step}`,
        toolName: step % 3 === 0 ? "execute_command" : "grep",
        isError: step % 7 === 0,
        content: [{ type: "text", text: output(step) }],
      },
    });
  }
  list.push({
    message: {
      role: "assistant",
      content: [{ type: "text", text: "Fixed: the rounding in toCents used floats." }],
    },
  });
  return list;
}

const rules = Array.from({ length: 8 }, (_, i) => ({
  condition: `working on module ${i} of the payment service`,
  rule: `run make test-${i} instead of npm test, and regenerate fixtures with make fixtures`,
}));
const answer =
  "ADD: WHEN a money amount is rounded THEN use integer cents, never floats.\nAGREE 2: run make test-1 instead of npm test";

const rows = [];
for (const steps of [3, 10, 30, 100]) {
  const transcript = keepHeadAndTail(transcriptOf(entries(steps)), REFLECTION_TRANSCRIPT_CHARS);
  const request = reflectionRequest({
    task: "Fix the failing tests in the payment module.",
    outcome: "completed (success)",
    transcript,
    rules,
  });
  const input = estimateTokens(REFLECTION_SYSTEM_PROMPT) + estimateTokens(request) + 8;
  rows.push({ steps, transcriptChars: transcript.length, input, output: estimateTokens(answer) });
}
console.log("Reflection request per run (8 known rules shown; transcript capped at 16,000 chars)");
console.log("| run steps | transcript chars | input tokens | output tokens |");
console.log("|---|---|---|---|");
for (const row of rows)
  console.log(`| ${row.steps} | ${row.transcriptChars} | ${row.input} | ${row.output} |`);
