// The lesson a failed call's output calls for, over a real SQLite store: a key found whole in the
// output (a message of three words or more, an error code) or several weighty words; never a
// rule the output meets on a word or a file name alone; none when two rules fit alike; none the
// run already had; and of a long log, its head and tail are what is searched.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { errorExcerpt, lessonForError } from "../../src/memory/index.js";
import { openStore, type Store } from "../../src/store/index.js";
import { experience, PROJECT } from "../store/fixtures.js";

let home: string;
let store: Store;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "reson-error-match-"));
  store = await openStore({ home });
});
afterEach(async () => {
  await store.close();
  await rm(home, { recursive: true, force: true });
});

const found = async (output: string, exclude: string[] = []) =>
  (await lessonForError(store.experiences, PROJECT, output, new Set(exclude)))?.experience.rule;

async function add(condition: string, rule: string, keys: string[]) {
  const record = experience({ status: "active", condition, rule, keys });
  await store.experiences.insert(record);
  return record.id;
}

describe("a lesson found by an error's output", () => {
  it("finds the rule whose message or error code the output prints, with other names around it", async () => {
    const sequence = await add(
      "inserts fail on the primary key after a restore",
      "reset the sequence with setval",
      ["duplicate key value violates unique constraint", "orders_pkey", "setval"],
    );
    await add("several processes write to the SQLite database at once", "set busy_timeout", [
      "SQLITE_BUSY",
      "database is locked",
    ]);
    expect(
      await found(
        'psql:seed.sql:3: ERROR:  duplicate key value violates unique constraint "users_pkey"\nDETAIL:  Key (id)=(2) already exists.',
      ),
    ).toBe("reset the sequence with setval");
    expect(
      await found(
        "SqliteError: cannot commit\n    at Database.exec (db.js:10:3) {\n  code: 'SQLITE_BUSY'\n}",
      ),
    ).toBe("set busy_timeout");
    // A rule the run was shown already is not shown again.
    expect(
      await found('ERROR:  duplicate key value violates unique constraint "a_pkey"', [sequence]),
    ).toBeUndefined();
  });

  it("finds a rule the output meets on several weighty words when the tool words the trouble its own way", async () => {
    await add(
      "the Gradle daemon is killed while compiling the Android app",
      "raise org.gradle.jvmargs to -Xmx4g in gradle.properties",
      ["Gradle daemon disappeared unexpectedly", "out of memory", "gradle.properties"],
    );
    expect(
      await found(
        "FAILURE: Build failed with an exception.\n* What went wrong:\nThe Gradle daemon was killed while the Android compile ran: it needed more heap memory",
      ),
    ).toBe("raise org.gradle.jvmargs to -Xmx4g in gradle.properties");
  });

  it("brings nothing for an output that meets a rule on one word or one file name", async () => {
    await add("the build fails after package.json changed", "run npm ci after editing package.json", [
      "package.json",
      "npm ci",
    ]);
    await add("the tests time out on CI", "raise the test timeout", ["timeout", "vitest"]);
    expect(await found("Error: ENOENT: no such file or directory, open '/app/package.json'")).toBeUndefined();
    expect(await found("curl: (28) Operation timed out after 5001 milliseconds")).toBeUndefined();
  });

  it("does not take an error class for an error code", async () => {
    await add("the app fails at start because a setting is missing", "copy .env.example to .env", [
      "KeyError",
      "environment variable not set",
    ]);
    expect(await found("E       KeyError: 'region'\ntests/test_report.py:41: KeyError")).toBeUndefined();
  });

  it("brings nothing when two rules fit the output alike", async () => {
    await add("the mail job sends the report twice", "take a lock before sending", [
      "connection refused smtp",
    ]);
    await add("the mail job cannot reach the relay", "use port 587 for the relay", [
      "connection refused smtp",
    ]);
    expect(await found("Error: connect ECONNREFUSED 10.0.0.5:25 (connection refused smtp)")).toBeUndefined();
  });

  it("searches the head and tail of a long log, where commands and errors are printed", () => {
    const log = [
      "$ make build",
      ...Array.from({ length: 500 }, (_, i) => `compiling module_${i}.c`),
      "fatal error: zlib.h: No such file or directory",
    ].join("\n");
    const excerpt = errorExcerpt(log);
    expect(excerpt).toContain("$ make build");
    expect(excerpt).toContain("fatal error: zlib.h");
    expect(excerpt).not.toContain("module_200.c");
    expect(excerpt.length).toBeLessThanOrEqual(3000);
  });
});
