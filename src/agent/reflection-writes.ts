// What a reflection's operations change in a project's rules, as one batch of writes: an added
// rule is a candidate; an agreement adds the run as evidence and may promote a candidate once
// enough trusted runs back it; an edit rewrites a rule; a removal votes it down, retiring it at
// zero. A run that read untrusted content may have been steered by it: everything it proposes is
// a candidate only `reson experiences confirm` makes active, its agreement is no evidence for
// promotion and adds no keys (keys decide which later tasks a rule reaches), its edit is a
// candidate of its own instead, and it retires nothing.
import type { LearningReport } from "../core/events.js";
import { ulid } from "../core/ids.js";
import { mergeKeys, type ReflectionOp, voteDelta } from "../memory/index.js";
import type { Experience, ExperienceEvidence, Outcome, Provenance, WriteOp } from "../store/index.js";

/** The run reflected on, and the project's settings the writes follow. */
export interface ReflectionFacts {
  traceId: string;
  outcome: Outcome;
  /** The run had read untrusted content. */
  untrusted: boolean;
  projectKey: string;
  /** Masks secrets in every text stored. */
  redact: (text: string) => string;
  /** Trusted runs that must back a candidate before it is used (memory.minEvidence). */
  minEvidence: number;
}

/** The writes for `ops` on the rules `shown` (numbered from 1); what they change goes into `report`. */
export function reflectionWrites(
  ops: readonly ReflectionOp[],
  shown: readonly Experience[],
  report: LearningReport,
  facts: ReflectionFacts,
): WriteOp[] {
  const { untrusted, outcome, projectKey, redact } = facts;
  const provenance: Provenance = untrusted ? "untrusted" : "agent";
  const now = Date.now();
  const evidence = (note: string): ExperienceEvidence => ({
    traceId: facts.traceId,
    outcome,
    note: untrusted ? `${note} (a run that read untrusted content)` : note,
    at: now,
    ...(untrusted ? { untrusted: true } : {}),
  });
  const writes: WriteOp[] = [];
  const touched: Experience[] = [];
  const candidate = (
    text: { condition: string; rule: string; keys: readonly string[] },
    note: string,
    votes: number,
  ) => {
    const id = ulid(now);
    writes.push({
      op: "insertExperience",
      experience: {
        id,
        projectKey,
        scope: `project:${projectKey.slice(0, 12)}`,
        condition: redact(text.condition),
        rule: redact(text.rule),
        keys: text.keys.map(redact),
        conditionFilter: null,
        evidence: [evidence(note)],
        confidence: 0.5,
        usageCount: 0,
        successCount: 0,
        failureCount: 0,
        holdoutSuccessCount: 0,
        holdoutFailureCount: 0,
        votes,
        provenance,
        status: "candidate",
        createdAt: now,
        updatedAt: now,
        lastUsedAt: null,
      },
    });
    return id;
  };
  for (const op of ops) {
    if (untrusted && op.kind === "edit") {
      // Never rewritten in place: the edited text is a candidate of its own.
      const target = shown[op.index - 1]!;
      report.added.push(
        candidate(
          { condition: op.condition ?? target.condition, rule: op.rule, keys: op.keys ?? target.keys },
          "edit proposed by reflection",
          1,
        ),
      );
      continue;
    }
    if (op.kind === "add") {
      report.added.push(candidate(op, "added by reflection", voteDelta(op, shown.length)));
      continue;
    }
    const target = shown[op.index - 1]!;
    writes.push({ op: "voteExperience", id: target.id, delta: voteDelta(op, shown.length), at: now });
    if (op.kind === "remove") {
      report.removed.push(target.id);
      if (!untrusted && target.votes + voteDelta(op, shown.length) <= 0) {
        writes.push({ op: "updateExperience", id: target.id, patch: { status: "retired" }, at: now });
        report.retired.push(target.id);
      }
      continue;
    }
    const backing = target.evidence.some((item) => item.traceId === facts.traceId)
      ? target.evidence
      : [
          ...target.evidence,
          evidence(op.kind === "edit" ? "edited by reflection" : "confirmed by reflection"),
        ];
    // Keys are kept by an edit or a confirmation; new ones join them, unless the run was untrusted.
    const keys = op.keys && !untrusted ? mergeKeys(target.keys, op.keys.map(redact)) : undefined;
    const patch = {
      evidence: backing,
      ...(keys && keys.length !== target.keys.length ? { keys } : {}),
      ...(op.kind === "edit"
        ? { rule: redact(op.rule), ...(op.condition ? { condition: redact(op.condition) } : {}) }
        : {}),
    };
    writes.push({ op: "updateExperience", id: target.id, patch, at: now });
    (op.kind === "edit" ? report.edited : report.agreed).push(target.id);
    touched.push({ ...target, evidence: backing, provenance: untrusted ? "untrusted" : target.provenance });
  }
  // A candidate becomes active once enough independent runs back it and nothing untrusted made it.
  const promote = (id: string) => {
    writes.push({ op: "updateExperience", id, patch: { status: "active" }, at: now });
    report.promoted.push(id);
  };
  for (const experience of touched) {
    const runs = new Set(experience.evidence.filter((item) => !item.untrusted).map((item) => item.traceId))
      .size;
    if (
      experience.status === "candidate" &&
      runs >= facts.minEvidence &&
      experience.provenance !== "untrusted"
    )
      promote(experience.id);
  }
  if (facts.minEvidence <= 1 && provenance !== "untrusted") for (const id of report.added) promote(id);
  return writes;
}
