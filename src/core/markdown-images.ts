// What of a model's text would make whatever renders it fetch a URL with no one clicking: a
// Markdown image (`![x](https://host/p.png?q=<what the run read>)`, or by reference, `![x][r]`
// with `[r]: https://…`) and HTML that loads a resource (`<img src=…>`, `<iframe>`, `<video>`…).
// An editor's agent panel (ACP), a service's own chat page or a Markdown viewer of a run's
// answer would send the request, carrying what a fooled model put in the URL: an egress no
// permission rule sees. Once a run has read untrusted content its text is made inert before
// anyone sees or stores it: an image becomes a link (`[image: x](…)`, followed only by a click),
// a reference definition stops being one (`\[r]: …`), and such a tag's `<` is escaped. Fenced
// code blocks are left as written (nothing renders there, and `vec![1, 2]` must stay code);
// outside them an image is neutralized even inside an inline code span, which costs at most a
// changed character where nothing would have rendered. Streamed text is handled a line at a
// time: a line is let through once it is complete, so an image split across deltas is caught.

/**
 * Tags that load what they name: `<style>` by its content (url(), @import), the others only
 * through an attribute (src, href, srcset, poster, data, background), so they count when an
 * attribute or the line's end follows the name, not when `>` does at once: `List<Object>` and
 * `Promise<Image>` in prose stay as written.
 */
const LOADING_TAGS =
  /<(?=style(?:[\s/>]|$)|(?:img|image|picture|source|video|audio|track|iframe|frame|object|embed|svg|use|link|meta|base|input|body|table|td|script)(?:[\s/]|$))/gi;
/** `![alt](` or `![alt][`: the alt text has no closing bracket of its own on the line. */
const IMAGE = /(?<!\\)!\[([^\]\n]*)\](?=[([])/g;
/** A link reference definition: up to 3 spaces, `[label]:` and something after it. */
const DEFINITION = /^( {0,3})(\[[^\]\n]+\]:)/;
/** A fence opening or closing: up to 3 spaces, then 3 or more backticks or tildes. */
const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/** Whether fenced code is open after a line, as CommonMark reads fences. */
interface FenceState {
  /** The opening run (``` or ~~~~…), while a fenced block is open. */
  open?: string;
}

function inertLine(line: string): string {
  return line
    .replace(IMAGE, (_, alt: string) => `[image: ${alt}]`)
    .replace(DEFINITION, (_, indent: string, label: string) => `${indent}\\${label}`)
    .replace(LOADING_TAGS, "&lt;");
}

/** One line (without its line break) made inert, given and updating the fence state. */
function inertLineIn(line: string, fence: FenceState): string {
  const match = FENCE.exec(line);
  if (fence.open !== undefined) {
    // Closed by a run of the same character at least as long, with nothing after it.
    if (
      match &&
      match[1]![0] === fence.open[0] &&
      match[1]!.length >= fence.open.length &&
      match[2]!.trim() === ""
    )
      fence.open = undefined;
    return line;
  }
  // A backtick fence's info string may hold no backtick (else the line is not a fence).
  if (match && !(match[1]![0] === "`" && match[2]!.includes("`"))) {
    fence.open = match[1]!;
    return line;
  }
  return inertLine(line);
}

/**
 * Lines made inert in turn, updating the fence state; `continuing`: the first one is the rest of
 * a line already partly let through, so it cannot open or close a fence.
 */
function inertLines(text: string, fence: FenceState, continuing = false): string {
  return text
    .split("\n")
    .map((line, index) => {
      if (index > 0 || !continuing) return inertLineIn(line, fence);
      return fence.open === undefined ? inertLine(line) : line;
    })
    .join("\n");
}

/** `text` with its images, reference definitions and loading tags made inert (fenced code kept). */
export function inertImages(text: string): string {
  return mayLoad(text) ? inertLines(text, {}) : text;
}

/** Cheap pre-check: nothing in `text` could load anything. */
function mayLoad(text: string): boolean {
  return text.includes("![") || text.includes("<") || text.includes("]:");
}

/** A line held back longest while it streams (then the part that cannot start an image goes). */
const MAX_HELD_CHARS = 4_000;

/**
 * The same over a stream of deltas: `push` returns the complete lines made inert (a partial line
 * waits for its end; past MAX_HELD_CHARS its part before the last `!`, `<` or `[` goes, and
 * what follows is read as the rest of that line, not as a line's start), `end` the rest.
 */
export function inertImageStream(): { push(delta: string): string; end(): string } {
  const fence: FenceState = {};
  let held = "";
  /** The held text continues a line already partly let through. */
  let midLine = false;
  const inert = (text: string) => inertLines(text, fence, midLine);
  return {
    push(delta) {
      held += delta;
      const cut = held.lastIndexOf("\n");
      if (cut !== -1) {
        const out = `${inert(held.slice(0, cut))}\n`;
        held = held.slice(cut + 1);
        midLine = false;
        return out;
      }
      if (held.length < MAX_HELD_CHARS) return "";
      // Before the last character that could start something, and the run of such before it.
      let safe = Math.max(held.lastIndexOf("!"), held.lastIndexOf("<"), held.lastIndexOf("["));
      while (safe > 0 && "!<[".includes(held[safe - 1]!)) safe -= 1;
      const upTo = safe > 0 ? safe : held.length;
      const out = inert(held.slice(0, upTo));
      held = held.slice(upTo);
      midLine = true;
      return out;
    },
    end() {
      const out = held === "" ? "" : inert(held);
      held = "";
      return out;
    },
  };
}
