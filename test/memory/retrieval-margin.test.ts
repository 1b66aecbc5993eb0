// Which lessons a run is shown when more than one rule meets its task, over a real SQLite store:
// a match on words alone must stand out from the other passing rules (a margin), a match on an
// identifier or error code stands whatever else matches, and a noun in -ion or -ment meets the
// verb it comes from only lightly (a "regular expression" is not express.raw).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { matchingExperiences } from "../../src/memory/index.js";
import { openStore, type Store } from "../../src/store/index.js";
import { experience, PROJECT } from "../store/fixtures.js";

let home: string;
let store: Store;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "reson-margin-"));
  store = await openStore({ home });
});
afterEach(async () => {
  await store.close();
  await rm(home, { recursive: true, force: true });
});

const deps = () => ({ store, projectKey: PROJECT, redact: (text: string) => text });
const shown = async (task: string) =>
  (await matchingExperiences(deps(), task, 4)).map((hit) => hit.experience.rule);

describe("rules meeting one task", () => {
  it("shows at most one rule when rules matched on words alone cover as much of the task", async () => {
    await store.experiences.insert(
      experience({
        status: "active",
        condition: "the nightly report email reaches customers twice",
        rule: "take a lock before the report job sends.",
      }),
    );
    await store.experiences.insert(
      experience({
        status: "active",
        condition: "customers get the invoice email from the wrong sender",
        rule: "set the From address of the invoice mailer.",
      }),
    );
    // Each rule meets the task on three words, two of them shared: which one the task needs is
    // chance, so both are not shown (before, each counted as evidence of its own: both were).
    const both = await shown("Draft an email to customers about the nightly invoice");
    expect(both.length).toBeLessThan(2);
    // A task that meets one rule on more words than the other gets that rule alone.
    expect(await shown("The nightly report email reaches some customers twice")).toEqual([
      "take a lock before the report job sends.",
    ]);
  });

  it("keeps a match on an identifier or error code however much else another rule covers", async () => {
    await store.experiences.insert(
      experience({
        status: "active",
        condition: "several processes write to the SQLite database at once",
        rule: "set PRAGMA busy_timeout and retry on SQLITE_BUSY.",
        keys: ["SQLITE_BUSY", "database is locked"],
      }),
    );
    await store.experiences.insert(
      experience({
        status: "active",
        condition: "the nightly database backup job writes to a full disk",
        rule: "prune old backups before the nightly job.",
      }),
    );
    expect(await shown("The nightly job writes to the database and fails with SQLITE_BUSY")).toContain(
      "set PRAGMA busy_timeout and retry on SQLITE_BUSY.",
    );
  });

  it("does not let a regular expression meet a rule about express.raw", async () => {
    await store.experiences.insert(
      experience({
        status: "active",
        condition: "verifying a webhook signature fails because the body was parsed as JSON first",
        rule: "mount express.raw on the webhook route before express.json.",
        keys: ["signature does not match", "raw body"],
      }),
    );
    expect(await shown("Write a regular expression that matches UK postcodes")).toEqual([]);
    // The same word in another form still meets it in full.
    expect(await shown("webhook signature verification fails since the body is parsed")).toHaveLength(1);
  });
});
