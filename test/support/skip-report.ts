// A vitest reporter that ends the run with one block naming each group skipped because the
// machine lacks something (requirements.ts records them), why, and the command that installs
// it. It prints nothing else, so it sits beside the default reporter.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import type { Reporter, TestModule } from "vitest/node";
import { SKIP_LOG_ENV, type SkipRecord } from "./requirements.js";

export default class SkipReport implements Reporter {
  private dir = mkdtempSync(join(tmpdir(), "reson-test-skips-"));
  private log = join(this.dir, "skips.jsonl");

  onInit(): void {
    // Set before the workers are forked, which inherit it.
    process.env[SKIP_LOG_ENV] = this.log;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const records = this.records();
    rmSync(this.dir, { recursive: true, force: true });
    process.stdout.write(`${renderSkipBlock(records, skippedCounts(testModules, records))}\n`);
  }

  private records(): SkipRecord[] {
    let text = "";
    try {
      text = readFileSync(this.log, "utf8");
    } catch {
      return [];
    }
    const seen = new Set<string>();
    const records: SkipRecord[] = [];
    for (const line of text.split("\n")) {
      if (!line) continue;
      const record = JSON.parse(line) as SkipRecord;
      const key = `${record.requirement}\0${record.file}\0${record.group}`;
      if (seen.has(key)) continue;
      seen.add(key);
      records.push(record);
    }
    return records;
  }
}

/** How many tests each recorded group skipped, keyed like the records. */
function skippedCounts(testModules: ReadonlyArray<TestModule>, records: SkipRecord[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const module of testModules) {
    const file = relative(process.cwd(), module.moduleId);
    const groups = records.filter((record) => record.file === file);
    if (groups.length === 0) continue;
    const tests = [...module.children.allTests()].map((test) => ({
      skipped: test.result().state === "skipped",
      path: test.fullName.split(" > "),
    }));
    // A group named like no suite or test of the file (e.g. "every suite") stands for the file.
    const wholeFile = groups.find((record) => !tests.some((test) => test.path.includes(record.group)));
    for (const test of tests) {
      if (!test.skipped) continue;
      const group = groups.find((record) => test.path.includes(record.group)) ?? wholeFile;
      if (group) counts.set(countKey(group), (counts.get(countKey(group)) ?? 0) + 1);
    }
  }
  return counts;
}

function countKey(record: SkipRecord): string {
  return `${record.file}\0${record.group}`;
}

export function renderSkipBlock(recorded: SkipRecord[], counts: Map<string, number>): string {
  // A file that asked about a requirement but skipped nothing for it is not worth a line.
  const records = recorded.filter((record) => (counts.get(countKey(record)) ?? 0) > 0);
  const ci = process.env.CI ? " (CI=true: nothing may be skipped)" : "";
  if (records.length === 0) return `\nSkipped for missing dependencies: none${ci}.`;
  const lines = ["", "Skipped for missing dependencies (they run under CI=true, where a missing one fails):"];
  const byRequirement = Map.groupBy(records, (record) => record.requirement);
  for (const group of byRequirement.values()) {
    const first = group[0] as SkipRecord;
    const total = group.reduce((sum, record) => sum + (counts.get(countKey(record)) ?? 0), 0);
    lines.push(`  ${first.label}: ${total} test${total === 1 ? "" : "s"} skipped — ${first.why}`);
    for (const record of group) {
      const n = counts.get(countKey(record)) ?? 0;
      lines.push(`    - ${record.file}: ${record.group} (${n})`);
    }
    lines.push(`    install: ${first.install}`);
  }
  lines.push("  Everything at once on Debian: bash .ci/run");
  return lines.join("\n");
}
