// ExpeL's edit operations on a rule set: the reflection model answers with lines
// "ADD: <rule>", "AGREE <n>: <rule>", "EDIT <n>: <rule>", "REMOVE <n>: <rule>" against the
// numbered rules it was shown, each ADD, AGREE or EDIT optionally ending in "KEYS: a; b; c",
// the retrieval keys (what a future task needing the rule would mention). Parsing is lenient
// about spacing and case; sanitising drops what cannot apply (a number that names no rule, an
// ADD of a rule already there), and an EDIT that changes nothing counts as an AGREE.

export type ReflectionOp =
  | { kind: "add"; rule: string; condition: string; keys: string[] }
  | { kind: "agree"; index: number; keys?: string[] }
  | { kind: "edit"; index: number; rule: string; condition?: string; keys?: string[] }
  | { kind: "remove"; index: number };

/** Rules shown to the model, numbered from 1 in this order. */
export interface ShownRule {
  rule: string;
  condition: string;
  keys?: readonly string[];
}

const LINE = /^\s*(?:[-*]\s*)?(ADD|AGREE|EDIT|REMOVE)\s*(\d+)?\s*[:.-]\s*(.+?)\s*$/i;
/** "WHEN <condition> THEN <rule>" inside an ADD or EDIT; without it the rule is its own condition. */
const WHEN_THEN = /^when\s+(.+?)\s*(?:,\s*|\s+)then\s+(.+)$/i;
/** Rules are sentences of a useful length; longer text is a paragraph, not a rule. */
const MIN_RULE_CHARS = 12;
const MAX_RULE_CHARS = 400;
/** "... KEYS: a; b; c" at the end of an operation. */
const KEYS_SUFFIX = /\s*\bKEYS?\s*:\s*(.*)$/i;
const MAX_KEYS = 12;
const MAX_KEY_CHARS = 120;

/** The operation's text without its keys, and the keys (split on ; or |). */
function splitKeys(text: string): { text: string; keys: string[] | undefined } {
  const match = KEYS_SUFFIX.exec(text);
  if (!match) return { text, keys: undefined };
  const keys = match[1]!
    .split(/[;|]/)
    .map((key) =>
      key
        .trim()
        .replace(/^["'`]+|["'`]+$/g, "")
        .trim(),
    )
    .filter((key) => key.length > 0 && key.length <= MAX_KEY_CHARS);
  return { text: text.slice(0, match.index).trim(), keys: [...new Set(keys)].slice(0, MAX_KEYS) };
}

function normalise(text: string): string {
  return text
    .toLowerCase()
    .replace(/\s+/g, " ")
    .replace(/[.!;]+$/, "")
    .trim();
}

function splitCondition(text: string): { rule: string; condition: string } {
  const match = WHEN_THEN.exec(text.trim());
  if (!match) return { rule: text.trim(), condition: text.trim() };
  return { condition: match[1]!.trim(), rule: match[2]!.trim() };
}

/** The operations in the model's answer, in the order given; other lines are ignored. */
export function parseReflectionOps(answer: string): ReflectionOp[] {
  const ops: ReflectionOp[] = [];
  for (const line of answer.split("\n")) {
    const match = LINE.exec(line);
    if (!match) continue;
    const kind = match[1]!.toLowerCase();
    const index = match[2] === undefined ? undefined : Number(match[2]);
    const { text, keys } = splitKeys(match[3]!.trim());
    if (kind === "add") {
      const parts = splitCondition(text);
      if (parts.rule.length >= MIN_RULE_CHARS && parts.rule.length <= MAX_RULE_CHARS)
        ops.push({ kind, ...parts, keys: keys ?? [] });
      continue;
    }
    if (index === undefined) continue;
    if (kind === "agree") ops.push({ kind, index, ...(keys ? { keys } : {}) });
    else if (kind === "remove") ops.push({ kind, index });
    else {
      const parts = splitCondition(text);
      if (parts.rule.length < MIN_RULE_CHARS || parts.rule.length > MAX_RULE_CHARS) continue;
      ops.push({
        kind: "edit",
        index,
        rule: parts.rule,
        ...(parts.condition !== parts.rule ? { condition: parts.condition } : {}),
        ...(keys ? { keys } : {}),
      });
    }
  }
  return ops;
}

/**
 * The operations that can apply to `shown`: numbers must name a shown rule, an ADD must be
 * new (not the same as a shown rule or an earlier ADD), an EDIT to the same text is an AGREE,
 * and each shown rule is touched at most once (the first operation on it wins).
 */
export function sanitiseOps(ops: readonly ReflectionOp[], shown: readonly ShownRule[]): ReflectionOp[] {
  const known = new Set(shown.map((rule) => normalise(rule.rule)));
  const touched = new Set<number>();
  const out: ReflectionOp[] = [];
  for (const op of ops) {
    if (op.kind === "add") {
      const key = normalise(op.rule);
      if (known.has(key)) continue;
      known.add(key);
      out.push(op);
      continue;
    }
    if (op.index < 1 || op.index > shown.length || touched.has(op.index)) continue;
    touched.add(op.index);
    if (op.kind === "edit" && normalise(op.rule) === normalise(shown[op.index - 1]!.rule)) {
      out.push({ kind: "agree", index: op.index, ...(op.keys ? { keys: op.keys } : {}) });
      continue;
    }
    out.push(op);
  }
  return out;
}

/** ExpeL's vote changes: ADD starts at 2, AGREE and EDIT +1, REMOVE −1 (−3 once the set is crowded). */
export function voteDelta(op: ReflectionOp, ruleCount: number, crowdedAt = 25): number {
  switch (op.kind) {
    case "add":
      return 2;
    case "agree":
    case "edit":
      return 1;
    case "remove":
      return ruleCount >= crowdedAt ? -3 : -1;
  }
}
