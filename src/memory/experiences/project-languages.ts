// The languages a project's tasks are written in, for the reflection prompt: a rule's keys are
// asked for in each of them, so a lesson taught by an English run is found by a Chinese task
// and the other way round. memory.languages names them when set; otherwise they are read off
// the scripts of the task reflected on and of the project's recent tasks (Latin script counts
// as English, which the keys are always asked in).
import type { Store } from "../../store/index.js";

/** Language codes memory.languages may use, by the name the prompt gives. */
const NAMES: Readonly<Record<string, string>> = {
  en: "English",
  zh: "Chinese",
  ja: "Japanese",
  ko: "Korean",
  ru: "Russian",
  uk: "Ukrainian",
  ar: "Arabic",
  he: "Hebrew",
  el: "Greek",
  th: "Thai",
  hi: "Hindi",
  fr: "French",
  de: "German",
  es: "Spanish",
  pt: "Portuguese",
  it: "Italian",
  nl: "Dutch",
  pl: "Polish",
  tr: "Turkish",
  vi: "Vietnamese",
};

/** Scripts that name their language well enough, checked in this order (kana before Han). */
const SCRIPTS: readonly (readonly [RegExp, string])[] = [
  [/[\p{sc=Hiragana}\p{sc=Katakana}]/u, "Japanese"],
  [/\p{sc=Hangul}/u, "Korean"],
  [/\p{sc=Han}/u, "Chinese"],
  [/\p{sc=Cyrillic}/u, "Russian"],
  [/\p{sc=Arabic}/u, "Arabic"],
  [/\p{sc=Hebrew}/u, "Hebrew"],
  [/\p{sc=Greek}/u, "Greek"],
  [/\p{sc=Thai}/u, "Thai"],
  [/\p{sc=Devanagari}/u, "Hindi"],
];

/** Recent tasks of the project read for their languages. */
const RECENT_TASKS = 50;

/** The language a text is written in, by its script; Latin script and none are English. */
export function languageOfText(text: string): string {
  for (const [script, language] of SCRIPTS) if (script.test(text)) return language;
  return "English";
}

/** A configured language (a code such as "zh" or a name such as "Chinese") as the prompt names it. */
export function languageName(language: string): string {
  const trimmed = language.trim();
  return NAMES[trimmed.toLowerCase()] ?? trimmed;
}

/** English first, then the others in the order met, each once. */
function ordered(languages: Iterable<string>): string[] {
  return [...new Set(["English", ...languages])];
}

/**
 * The languages to ask keys in: those memory.languages names, else those of the project's
 * recent tasks; and the language of `task` in either case.
 */
export async function projectLanguages(
  store: Store,
  projectKey: string,
  task: string,
  configured: readonly string[] | undefined,
): Promise<string[]> {
  if (configured && configured.length > 0)
    return ordered([...configured.map(languageName), languageOfText(task)]);
  const recent = await store.memory.getRecent({ projectKey, kinds: ["turn"], limit: RECENT_TASKS });
  const tasks = recent.filter((item) => item.role === "user").map((item) => item.text);
  return ordered([task, ...tasks].map(languageOfText));
}
