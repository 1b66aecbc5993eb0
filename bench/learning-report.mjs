// The tables of the learning benchmark (learning.mjs): recall by kind of probe and language,
// wrong lessons, near misses given the lesson, unrelated tasks given any lesson.

const pct = (n, d) => (d === 0 ? "–" : `${Math.round((100 * n) / d)} % (${n}/${d})`);

const isRewording = (x) => x.kind === "reworded" || x.kind === "far";

/** One column per result (a mode), one row per measure. */
export function retrievalTable(results) {
  const lines = [
    `| measure | ${results.map((r) => r.mode).join(" | ")} |`,
    `|---|${results.map(() => "---").join("|")}|`,
  ];
  const row = (label, pick, count = (set) => set.filter((x) => x.hit).length) =>
    lines.push(
      `| ${label} | ${results
        .map((r) => {
          const set = pick(r);
          return pct(count(set), set.length);
        })
        .join(" | ")} |`,
    );
  const probes = (r) => r.rows.filter((x) => x.kind !== "near");
  row("recall, taught wording", (r) => r.rows.filter((x) => x.kind === "taught"));
  row("**recall, all rewordings (reworded + far)**", (r) => r.rows.filter(isRewording));
  row("recall, rewordings, English", (r) => r.rows.filter((x) => isRewording(x) && x.lang === "en"));
  row("recall, rewordings, Chinese", (r) => r.rows.filter((x) => isRewording(x) && x.lang === "zh"));
  row("recall, reworded (sharing words)", (r) => r.rows.filter((x) => x.kind === "reworded"));
  row("recall, reworded English", (r) => r.rows.filter((x) => x.kind === "reworded" && x.lang === "en"));
  row("recall, reworded Chinese", (r) => r.rows.filter((x) => x.kind === "reworded" && x.lang === "zh"));
  row("recall, far (no content word shared)", (r) => r.rows.filter((x) => x.kind === "far"));
  row("recall, far English", (r) => r.rows.filter((x) => x.kind === "far" && x.lang === "en"));
  row("recall, far Chinese", (r) => r.rows.filter((x) => x.kind === "far" && x.lang === "zh"));
  row("recall, all probes but near misses", probes);
  row(
    "wrong lessons (probes shown another family's lesson)",
    probes,
    (set) => set.filter((x) => x.wrong).length,
  );
  row(
    "near misses shown the family's lesson",
    (r) => r.rows.filter((x) => x.kind === "near"),
    (set) => set.filter((x) => x.hit).length,
  );
  row(
    "near misses shown any lesson",
    (r) => r.rows.filter((x) => x.kind === "near"),
    (set) => set.filter((x) => x.lessons.length > 0).length,
  );
  row(
    "unrelated tasks given any lesson",
    (r) => r.unrelated,
    (set) => set.filter((x) => x.injected).length,
  );
  return lines.join("\n");
}

/** The probes that missed, were shown another lesson, or (near, unrelated) were shown one. */
export function missesOf(result) {
  const out = [];
  for (const x of result.rows) {
    if (x.kind === "near") {
      if (x.lessons.length > 0)
        out.push(`- near miss given ${x.lessons.join(", ")} (${x.family}): ${x.task}`);
      continue;
    }
    if (!x.hit) out.push(`- miss (${x.family}, ${x.lang}, ${x.kind}): ${x.task}`);
    if (x.wrong)
      out.push(
        `- wrong lesson ${x.lessons.filter((f) => f !== x.family).join(", ")} (${x.family}): ${x.task}`,
      );
  }
  for (const x of result.unrelated.filter((u) => u.injected))
    out.push(`- injected ${x.lessons.join(", ")}: ${x.task}`);
  return out.length > 0 ? out.join("\n") : "- none";
}
