// Lessons found by what a failed command printed (src/memory/experiences/error-match.ts),
// through the CLI against the scripted fake model server:
//   1. a crowded project is taught: each family of held-out set 7 (learning-heldout-7.mjs) by a
//      run whose command fails with the family's teaching output, its reflection scripted as a
//      careful model following the build's prompt would answer (the family's keys, and its
//      rewordings when the prompt asks for them); beside them the tuned set's 12 families;
//   2. each later task of a family (worded with no content word of the lesson) runs, its command
//      failing with what that case prints: the lessons in its first model call (its start) and
//      after the failed output are read off, and whether its reflection was offered the rule;
//   3. near errors (same tool, another trouble) and unrelated errors run the same way: any
//      lesson they are shown is a wrong one.
// Run `npm run build` first.
//   node bench/learning-at-error.mjs [--cases] [--out FILE] [--cli <reson.js>]
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FAMILIES } from "./learning-families.mjs";
import {
  isReflection,
  LESSON_ID,
  messagesOf,
  ROOT,
  startHarness,
  systemOf,
  taskOf,
  textOf,
} from "./learning-harness.mjs";
import { HELDOUT7_FAMILIES, HELDOUT7_UNRELATED_ERRORS } from "./learning-heldout-7.mjs";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : fallback;
};
const CLI = option("--cli", join(ROOT, "bin/reson.js"));
const harness = await startHarness({ cli: CLI, name: "at-error" });
const { server, project } = harness;

/** The output a task's command prints, by task; the command cats it from a file and fails. */
const outputs = new Map();
/** Tasks whose run reads a missing file first (the tuned families' teaching runs). */
const readsMissing = new Set();
/** Reflection answers by task, from the known rules it was shown; and what each was shown. */
const reflections = new Map();
const offered = new Map();

server.setResponder((request) => {
  if (request.protocol !== "openai") return undefined;
  if (isReflection(request)) {
    const body = textOf(messagesOf(request).at(-1)?.content);
    const task = /^Task: (.*)$/m.exec(body)?.[1] ?? "";
    const known = /Known rules:\n([\s\S]*?)\n\nThe run:/.exec(body)?.[1] ?? "";
    offered.set(task, known);
    const answer = reflections.get(task);
    return { text: answer ? answer({ system: systemOf(request), body }) : "NONE" };
  }
  const messages = messagesOf(request);
  if (messages.some((m) => m.role === "tool")) return { text: "Recovered; done." };
  const task = taskOf(request);
  const file = outputs.get(task);
  if (file)
    return { toolCalls: [{ name: "execute_command", arguments: { command: `cat ${file} >&2; exit 1` } }] };
  if (readsMissing.has(task)) {
    return { toolCalls: [{ name: "read_file", arguments: { path: "notes/missing-runbook.md" } }] };
  }
  return { text: "Done." };
});

/** The keys a careful model writes, following the prompt: the family's, and its rewordings when asked. */
const addLine = (family, prompt) => {
  const keys = [...family.keys, ...(/reword/i.test(prompt.system) ? (family.asks ?? []) : [])];
  return `ADD: WHEN ${family.condition} THEN ${family.rule} KEYS: ${keys.join("; ")}`;
};

let fileCount = 0;
function failsWith(p, task, output) {
  const name = `.bench-output-${fileCount++}.txt`;
  mkdirSync(p.ws, { recursive: true });
  writeFileSync(join(p.ws, name), output.endsWith("\n") ? output : `${output}\n`);
  outputs.set(task, name);
}

/** The lesson ids in the request after the failed output (in the last tool result). */
function lessonsAfterError(requests) {
  const after = requests.find((r) => !isReflection(r) && messagesOf(r).some((m) => m.role === "tool"));
  if (!after) return [];
  const tool = messagesOf(after).findLast((m) => m.role === "tool");
  return [...textOf(tool?.content).matchAll(LESSON_ID)].map((m) => m[1]);
}

const p = project("at-error", { minEvidence: 1 });
const familyOf = new Map();
try {
  const started = Date.now();
  for (const family of FAMILIES) {
    readsMissing.add(family.teach);
    reflections.set(family.teach, (prompt) => addLine(family, prompt));
    await p.run(family.teach);
  }
  for (const family of HELDOUT7_FAMILIES) {
    failsWith(p, family.teach, family.teachError);
    reflections.set(family.teach, (prompt) => addLine(family, prompt));
    await p.run(family.teach);
  }
  for (const experience of await p.experiences()) {
    const family = [...FAMILIES, ...HELDOUT7_FAMILIES].find((f) => experience.rule.startsWith(f.rule));
    if (family) familyOf.set(experience.id, family.id);
  }
  const learnt = HELDOUT7_FAMILIES.filter((f) => [...familyOf.values()].includes(f.id)).length;

  const probe = async (item) => {
    failsWith(p, item.task, item.error);
    const { lessons, requests } = await p.run(item.task);
    const atError = lessonsAfterError(requests);
    return {
      atStart: lessons.map((id) => familyOf.get(id) ?? "?"),
      atError: atError.map((id) => familyOf.get(id) ?? "?"),
      offered: offered.get(item.task) ?? "",
    };
  };
  const rows = [];
  for (const family of HELDOUT7_FAMILIES) {
    for (const item of family.probes) {
      const seen = await probe(item);
      rows.push({
        family: family.id,
        kind: "probe",
        ...item,
        ...seen,
        offeredRule: seen.offered.includes(family.rule),
      });
    }
    for (const item of family.near ?? [])
      rows.push({ family: family.id, kind: "near", ...item, ...(await probe(item)) });
  }
  for (const item of HELDOUT7_UNRELATED_ERRORS)
    rows.push({ family: "-", kind: "unrelated", ...item, ...(await probe(item)) });

  const pct = (n, d) => (d === 0 ? "–" : `${Math.round((100 * n) / d)} % (${n}/${d})`);
  const probes = rows.filter((r) => r.kind === "probe");
  const near = rows.filter((r) => r.kind === "near");
  const unrelated = rows.filter((r) => r.kind === "unrelated");
  const right = (r) => r.atError.includes(r.family);
  const atStart = (r) => r.atStart.includes(r.family);
  const wrongAtError = (r) => r.atError.some((f) => f !== r.family);
  const byLang = (lang) => probes.filter((r) => r.lang === lang);
  const lines = [
    `Lessons at errors (${CLI === join(ROOT, "bin/reson.js") ? "this build" : CLI}), ${new Date().toISOString().slice(0, 10)} (${Math.round((Date.now() - started) / 1000)} s)`,
    "",
    `Held-out set 7: ${HELDOUT7_FAMILIES.length} families taught by a failing command (learnt: ${learnt}), beside the tuned set's ${FAMILIES.length}: ${familyOf.size} rules in one project; ${probes.length} later tasks, ${near.length} near errors, ${unrelated.length} unrelated errors.`,
    "",
    "| measure | result |",
    "|---|---|",
    `| later tasks given the lesson at their start (by their words) | ${pct(probes.filter(atStart).length, probes.length)} |`,
    `| **later tasks given the lesson after the failed output** | ${pct(probes.filter(right).length, probes.length)} |`,
    `| … tasks in English | ${pct(byLang("en").filter(right).length, byLang("en").length)} |`,
    `| … tasks in Chinese | ${pct(byLang("zh").filter(right).length, byLang("zh").length)} |`,
    `| given it at the start or after the error | ${pct(probes.filter((r) => atStart(r) || right(r)).length, probes.length)} |`,
    `| later tasks shown another family's lesson after the error | ${pct(probes.filter(wrongAtError).length, probes.length)} |`,
    `| near errors (same tool, another trouble) shown any lesson after the error | ${pct(near.filter((r) => r.atError.length > 0).length, near.length)} |`,
    `| near errors shown their family's lesson | ${pct(near.filter(right).length, near.length)} |`,
    `| unrelated errors shown any lesson after the error | ${pct(unrelated.filter((r) => r.atError.length > 0).length, unrelated.length)} |`,
    `| later tasks whose reflection was offered the rule (to agree in the task's words) | ${pct(probes.filter((r) => r.offeredRule).length, probes.length)} |`,
  ];
  if (args.includes("--cases")) {
    lines.push("", "Cases (misses, wrong lessons):");
    for (const r of rows) {
      const miss = r.kind === "probe" && !right(r);
      const wrong = r.kind === "probe" ? wrongAtError(r) : r.atError.length > 0;
      if (!miss && !wrong) continue;
      lines.push(
        `- ${r.kind} ${r.family} (${r.lang})${miss ? " missed" : ""}${wrong ? ` shown ${r.atError.join(", ")}` : ""}: ${r.task}`,
      );
    }
  }
  const report = lines.join("\n");
  console.log(report);
  const out = option("--out", undefined);
  if (out) writeFileSync(out, `${report}\n`);
} finally {
  await harness.close();
}
