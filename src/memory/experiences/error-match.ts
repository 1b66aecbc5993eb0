// Finding the lesson a failed call's output calls for. A task worded with nothing in common
// with a lesson still hits the lesson's trouble, and the trouble prints what it printed when
// the lesson was learnt: the error message, its code, the tool's words. The output is searched
// like a task, but it is long and full of names, so a rule must meet it on more: one of its
// keys found whole in the output (an error message of three words or more, or an error code),
// or several content words of weight together; and it must stand out from every other rule
// that meets the output, or none is shown (two rules the output fits alike are a guess).
// These thresholds were fixed before the held-out set that measures them was looked at
// (bench/learning-heldout-7.mjs, bench/results/learning-2026-12-06d.md); two things were
// changed after its one run, which that file reports apart: a name with dots or slashes is
// not a message of several words, and an error class is not an error code.
import type { Experience, ExperienceRepository } from "../../store/index.js";
import { GENERIC_WORD_WEIGHT, matchedWords, type WeightedTerm, weightedTerms } from "../../store/index.js";

/** Lines of the output's head and tail searched (errors are printed last, the command first). */
const HEAD_LINES = 15;
const TAIL_LINES = 25;
const LINE_CHARS = 300;
/** At most this much of the head, and of the whole (characters). */
const HEAD_CHARS = 800;
const EXCERPT_CHARS = 3000;
/** Without a key found whole, a rule needs this much content weight, in this many terms. */
const MIN_WORD_WEIGHT = 5;
const MIN_WORDS = 3;
/** The best rule must lead the next that meets the output by this much weight. */
const LEAD_WEIGHT = 1.5;
const CANDIDATES = 20;
/** A key found whole: three words or more (a message), or four CJK characters. */
const MIN_PHRASE_WORDS = 3;
const MIN_CJK_PHRASE = 4;
/**
 * A key that is an error code: SQLITE_BUSY, ER_NOT_SUPPORTED_AUTH_MODE, TS2345, E0502, ENOSPC.
 * Not an error class (KeyError, TypeError): a language's own classes are raised by every kind
 * of trouble, so one in an output is no sign of a lesson's.
 */
const ERROR_CODE = /^(?:[A-Z][A-Z0-9]*_[A-Z0-9_]+|[A-Z]{1,4}[0-9]{3,5}|E[A-Z]{3,})$/;

export interface ErrorMatch {
  experience: Experience;
  /** The key found whole in the output, if one was. */
  phrase?: string;
  /** The content weight the rule's text covers of the output's terms. */
  weight: number;
}

/** What of a long output is searched: its first and last lines, each clipped. */
export function errorExcerpt(output: string): string {
  const lines = output.split("\n").filter((line) => line.trim() !== "");
  const clip = (part: string[]) => part.map((line) => line.slice(0, LINE_CHARS)).join("\n");
  if (lines.length <= HEAD_LINES + TAIL_LINES) {
    const whole = clip(lines);
    if (whole.length <= EXCERPT_CHARS) return whole;
  }
  const split = Math.min(HEAD_LINES, Math.floor(lines.length / 2));
  const head = clip(lines.slice(0, split)).slice(0, HEAD_CHARS);
  const tail = clip(lines.slice(Math.max(split, lines.length - TAIL_LINES)));
  return `${head}\n${tail.slice(-(EXCERPT_CHARS - head.length - 1))}`;
}

const normalised = (text: string) =>
  ` ${text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim()} `;

/** The key of `keys` found whole in the output, if any. */
function phraseIn(keys: readonly string[], output: string, outputNormalised: string): string | undefined {
  for (const key of keys) {
    const trimmed = key.trim();
    if (ERROR_CODE.test(trimmed)) {
      if (new RegExp(`(?<![A-Za-z0-9_])${trimmed}(?![A-Za-z0-9_])`).test(output)) return trimmed;
      continue;
    }
    const cjk = (trimmed.match(/\p{Script=Han}/gu) ?? []).length;
    // A message is words apart: a name cut at its dots and slashes (github.com/acme-corp) is one
    // name, which the weighty words below count as such.
    const words = trimmed.split(/\s+/u).filter((word) => /[\p{L}\p{N}]/u.test(word)).length;
    if (cjk < MIN_CJK_PHRASE && (cjk > 0 || words < MIN_PHRASE_WORDS)) continue;
    if (outputNormalised.includes(normalised(trimmed))) return trimmed;
  }
  return undefined;
}

function contentWeight(
  query: readonly WeightedTerm[],
  matched: ReadonlySet<string>,
): { weight: number; words: number } {
  const words = matchedWords(query, (term) => matched.has(term)).filter(
    (word) => word.identifier || word.weight > GENERIC_WORD_WEIGHT,
  );
  return { weight: words.reduce((sum, word) => sum + word.weight, 0), words: words.length };
}

/**
 * The one active rule the output of a failed call calls for, or undefined. `exclude`: rules
 * the run was shown already, or withheld from it.
 */
export async function lessonForError(
  experiences: Pick<ExperienceRepository, "search">,
  projectKey: string,
  output: string,
  exclude: ReadonlySet<string>,
): Promise<ErrorMatch | undefined> {
  const excerpt = errorExcerpt(output);
  if (excerpt.trim() === "") return undefined;
  const query = weightedTerms(excerpt);
  const found = await experiences.search(excerpt, { projectKey, status: "active", limit: CANDIDATES });
  const outputNormalised = normalised(excerpt);
  const meeting: ErrorMatch[] = [];
  for (const { experience, matched = [] } of found) {
    const phrase = phraseIn(experience.keys, excerpt, outputNormalised);
    const { weight, words } = contentWeight(query, new Set(matched));
    if (phrase === undefined && (weight < MIN_WORD_WEIGHT || words < MIN_WORDS)) continue;
    meeting.push({ experience, weight, ...(phrase !== undefined ? { phrase } : {}) });
  }
  meeting.sort(
    (a, b) => Number(b.phrase !== undefined) - Number(a.phrase !== undefined) || b.weight - a.weight,
  );
  const [best, next] = meeting;
  if (!best || exclude.has(best.experience.id)) return undefined;
  if (next) {
    const bestHasPhrase = best.phrase !== undefined;
    const nextHasPhrase = next.phrase !== undefined;
    if (bestHasPhrase === nextHasPhrase && best.weight - next.weight < LEAD_WEIGHT) return undefined;
  }
  return best;
}
