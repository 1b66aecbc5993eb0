// English stemming for the lexical index, after Porter's 1980 algorithm, its inflectional steps
// and the two suffixes that make a noun of a verb (-ion, -ment): "locked", "locking" and "locks"
// all become "lock", "connection" and "deployment" meet "connect" and "deploy", so a task and a
// lesson that use a word in different forms still share it (the index weighs a meeting through
// -ion or -ment lightly: search-terms.ts). The other derivational steps
// (-ization, -ize, -al, -ive) are left out: they made different words meet ("Authorization"
// and "author", "general" and "generate"). Stems are index keys, not words to show: "databases" becomes "databas".
// Words shorter than three letters, and words with digits, are left alone.

function isConsonant(word: string, i: number): boolean {
  const c = word[i];
  if (c === "a" || c === "e" || c === "i" || c === "o" || c === "u") return false;
  if (c === "y") return i === 0 || !isConsonant(word, i - 1);
  return true;
}

/** Porter's m: the number of vowel-consonant sequences in `stem`. */
function measure(stem: string): number {
  let m = 0;
  let i = 0;
  const n = stem.length;
  while (i < n && isConsonant(stem, i)) i++;
  while (i < n) {
    while (i < n && !isConsonant(stem, i)) i++;
    if (i >= n) break;
    while (i < n && isConsonant(stem, i)) i++;
    m++;
  }
  return m;
}

function hasVowel(stem: string): boolean {
  for (let i = 0; i < stem.length; i++) if (!isConsonant(stem, i)) return true;
  return false;
}

function endsDoubleConsonant(word: string): boolean {
  const n = word.length;
  return n >= 2 && word[n - 1] === word[n - 2] && isConsonant(word, n - 1);
}

/** consonant-vowel-consonant at the end, the last not w, x or y ("hop", not "how"). */
function endsCvc(word: string): boolean {
  const n = word.length;
  if (n < 3) return false;
  if (!isConsonant(word, n - 1) || isConsonant(word, n - 2) || !isConsonant(word, n - 3)) return false;
  const last = word[n - 1];
  return last !== "w" && last !== "x" && last !== "y";
}

function step1a(word: string): string {
  if (word.endsWith("sses")) return word.slice(0, -2);
  if (word.endsWith("ies")) return word.slice(0, -2);
  if (word.endsWith("ss")) return word;
  if (word.endsWith("s")) return word.slice(0, -1);
  return word;
}

function step1b(word: string): string {
  if (word.endsWith("eed")) return measure(word.slice(0, -3)) > 0 ? word.slice(0, -1) : word;
  let stem: string | undefined;
  if (word.endsWith("ed") && hasVowel(word.slice(0, -2))) stem = word.slice(0, -2);
  else if (word.endsWith("ing") && hasVowel(word.slice(0, -3))) stem = word.slice(0, -3);
  if (stem === undefined) return word;
  if (stem.endsWith("at") || stem.endsWith("bl") || stem.endsWith("iz")) return `${stem}e`;
  // A three-letter stem keeps its double letter: "added" and "erred" stay with "add" and "err"
  // (Porter cut them to "ad" and "er", apart from the words they inflect).
  if (endsDoubleConsonant(stem) && !/[lsz]$/.test(stem) && stem.length > 3) return stem.slice(0, -1);
  if (measure(stem) === 1 && endsCvc(stem)) return `${stem}e`;
  return stem;
}

function step1c(word: string): string {
  return word.endsWith("y") && hasVowel(word.slice(0, -1)) ? `${word.slice(0, -1)}i` : word;
}

/** -ion (after s or t) and -ment, when a stem of measure > 1 is left: connection, deployment. */
function nounSuffix(word: string): string {
  if (word.endsWith("ion")) {
    const stem = word.slice(0, -3);
    return /[st]$/.test(stem) && measure(stem) > 1 ? stem : word;
  }
  if (word.endsWith("ment")) {
    const stem = word.slice(0, -4);
    return measure(stem) > 1 ? stem : word;
  }
  return word;
}

function step5(word: string): string {
  let out = word;
  if (out.endsWith("e")) {
    const stem = out.slice(0, -1);
    const m = measure(stem);
    if (m > 1 || (m === 1 && !endsCvc(stem))) out = stem;
  }
  if (measure(out) > 1 && endsDoubleConsonant(out) && out.endsWith("l")) out = out.slice(0, -1);
  return out;
}

const LATIN_WORD = /^[a-z]+$/;

/** The stem of a lowercased English word; other tokens (digits, other scripts) as they are. */
export function stemEnglish(word: string): string {
  if (word.length < 3 || !LATIN_WORD.test(word)) return word;
  let out = step1a(word);
  out = step1b(out);
  out = nounSuffix(out);
  out = step1c(out);
  return step5(out);
}

/**
 * The stem of a word with its inflections alone taken off, -ion and -ment kept ("expressions"
 * → "expression", "deployments" → "deployment"): the word itself, where stemEnglish gives the
 * verb it comes from, which may be another word ("express", the framework).
 */
export function inflectedStem(word: string): string {
  if (word.length < 3 || !LATIN_WORD.test(word)) return word;
  return step5(step1c(step1b(step1a(word))));
}
