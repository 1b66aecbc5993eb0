// End to end, a lesson found by what a failed command printed: taught by one run, it is not
// found by a later task worded with nothing in common with it, but that task's run hits the
// same trouble, and the lesson follows the command's output (once); the run's reflection is
// shown the rule, agrees with it in the task's words, and the next task so worded finds it
// before its first step. An unrelated error brings no lesson.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, parseEvents, runCli } from "../support/cli.js";
import { type CliFixture, useCliFixture } from "../support/cli-fixture.js";
import type { RecordedRequest } from "../support/fake-model-server.js";
import { skipWithout } from "../support/requirements.js";

const noSandbox = await skipWithout("sandbox", "lessons found at an error");

const LESSON_NOTE = "[reson] A lesson from earlier runs in this project matches this error";
const RULE =
  "ADD: WHEN inserts fail on the primary key after rows were restored with explicit ids THEN reset the id " +
  "sequence with SELECT setval('orders_id_seq', (SELECT max(id) FROM orders)) in scripts/restore.sh " +
  "KEYS: duplicate key value violates unique constraint; orders_pkey; setval; insert fails after restore";

/** A command that prints `lines` to stderr and fails, as psql would. */
const failing = (lines: string[]) => `printf '%s\\n' ${lines.map((l) => `'${l}'`).join(" ")} >&2; exit 1`;

function isReflection(request: RecordedRequest): boolean {
  return JSON.stringify(request.body).includes("keep a short list of reusable rules");
}

function systemText(request: RecordedRequest): string {
  const messages = (request.body as { messages: Array<{ role: string; content: unknown }> }).messages;
  return String(messages.find((message) => message.role === "system")?.content ?? "");
}

/** The text of the last tool result in a request. */
function lastToolResult(request: RecordedRequest): string {
  const messages = (request.body as { messages: Array<{ role: string; content: unknown }> }).messages;
  return String(messages.findLast((message) => message.role === "tool")?.content ?? "");
}

describe("lessons found by a failed command's output", () => {
  const f: CliFixture = useCliFixture();
  const env = () =>
    cleanEnv({ RESON_HOME: f.home.path, RESON_MEMORY_REFLECT: "auto", RESON_MEMORY_HOLDOUT: "0" });
  const run = (task: string) =>
    runCli(["run", "--json", "--provider", "openai-compatible", "--base-url", f.server.openaiBaseUrl, task], {
      cwd: f.ws.path,
      env: env(),
      timeoutMs: 60_000,
    });
  const experiences = async () =>
    (await runCli(["experiences", "list", "--json"], { cwd: f.ws.path, env: env() })).stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { id: string; keys: string[]; usageCount: number });
  const modelRequests = () => f.server.requests.filter((request) => !isReflection(request));

  it.skipIf(noSandbox)(
    "shows the lesson after the error, lets reflection add the task's words, and finds it by them next time",
    async () => {
      writeFileSync(join(f.home.path, "config.json"), JSON.stringify({ memory: { minEvidence: 1 } }));
      const reflections: RecordedRequest[] = [];
      let answer = RULE;
      f.server.setResponder((request) => {
        if (!isReflection(request)) return undefined;
        reflections.push(request);
        return { text: answer };
      });

      // Taught: the restore left the sequence behind.
      f.server.enqueue(
        {
          toolCalls: [
            {
              name: "execute_command",
              arguments: {
                command: failing([
                  'ERROR:  duplicate key value violates unique constraint "orders_pkey"',
                  "DETAIL:  Key (id)=(1) already exists.",
                ]),
              },
            },
          ],
        },
        { text: "Reset the sequence with setval; inserts work again." },
      );
      const taught = await run("Inserting an order after the restore fails with a duplicate key error");
      expect(taught.code).toBe(0);
      const [lesson] = await experiences();
      expect(lesson).toBeDefined();

      // A task with no word of the lesson: nothing at the start, the lesson after the error.
      answer = `AGREE 1: reset the id sequence with setval KEYS: checkout breaks; purchase numbers taken`;
      f.server.enqueue(
        {
          toolCalls: [
            {
              name: "execute_command",
              arguments: {
                command: failing([
                  'psql:seed.sql:12: ERROR:  duplicate key value violates unique constraint "invoices_pkey"',
                  "DETAIL:  Key (id)=(7) already exists.",
                ]),
              },
            },
          ],
        },
        {
          toolCalls: [
            {
              name: "execute_command",
              arguments: { command: failing(["ERROR:  duplicate key value again"]) },
            },
          ],
        },
        { text: "Fixed by resetting the sequence." },
      );
      const far = await run("Checkout breaks on the migrated box: each purchase gets numbers that are taken");
      expect(far.code).toBe(0);
      const [start, afterError, afterSecond] = modelRequests().slice(-3);
      expect(systemText(start!)).not.toContain("setval");
      const note = lastToolResult(afterError!);
      expect(note).toContain('invoices_pkey"');
      expect(note).toContain(LESSON_NOTE);
      expect(note).toContain('(the output has "duplicate key value violates unique constraint")');
      expect(note).toContain(`[${lesson!.id}] When inserts fail on the primary key`);
      // Once per run.
      expect(lastToolResult(afterSecond!)).not.toContain(LESSON_NOTE);
      // The output as the run recorded it carries the lesson too (what resume and the trace show).
      const results = parseEvents(far.stdout).filter((event) => event.type === "tool_result");
      expect(JSON.stringify(results[0])).toContain(LESSON_NOTE);

      // The reflection was shown the rule the error met, and its agreement added the task's words.
      expect(JSON.stringify(reflections.at(-1)!.body)).toContain("reset the id sequence with SELECT setval");
      const [agreed] = await experiences();
      expect(agreed!.keys).toEqual(expect.arrayContaining(["checkout breaks", "purchase numbers taken"]));
      expect(agreed!.usageCount).toBe(1);

      // The next task in those words finds the lesson before its first step.
      f.server.enqueue({ text: "Done." });
      const next = await run("Checkout breaks again: purchase numbers taken on the new box");
      expect(next.code).toBe(0);
      expect(systemText(modelRequests().at(-1)!)).toContain("reset the id sequence with SELECT setval");
    },
    120_000,
  );

  it.skipIf(noSandbox)(
    "brings no lesson to an error it does not fit",
    async () => {
      writeFileSync(join(f.home.path, "config.json"), JSON.stringify({ memory: { minEvidence: 1 } }));
      f.server.setResponder((request) => (isReflection(request) ? { text: RULE } : undefined));
      f.server.enqueue(
        {
          toolCalls: [
            {
              name: "execute_command",
              arguments: {
                command: failing(['ERROR:  duplicate key value violates unique constraint "orders_pkey"']),
              },
            },
          ],
        },
        { text: "Fixed." },
      );
      expect((await run("Inserting an order after the restore fails")).code).toBe(0);
      f.server.setResponder((request) => (isReflection(request) ? { text: "NONE" } : undefined));
      f.server.enqueue(
        {
          toolCalls: [
            {
              name: "execute_command",
              arguments: {
                command: failing([
                  'ERROR:  relation "customers" does not exist',
                  "LINE 1: SELECT * FROM customers",
                ]),
              },
            },
          ],
        },
        {
          toolCalls: [
            {
              name: "execute_command",
              arguments: { command: "cat missing.txt" },
            },
          ],
        },
        { text: "The table is missing." },
      );
      expect((await run("List the customers from the database")).code).toBe(0);
      const [afterFirst, afterSecond] = modelRequests().slice(-2);
      expect(lastToolResult(afterFirst!)).toContain('relation "customers" does not exist');
      expect(lastToolResult(afterFirst!)).not.toContain(LESSON_NOTE);
      expect(lastToolResult(afterSecond!)).toContain("missing.txt");
      expect(lastToolResult(afterSecond!)).not.toContain(LESSON_NOTE);
    },
    120_000,
  );
});
