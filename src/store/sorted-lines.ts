// A word table kept as the text of its file, "word rest" per line, sorted by word as JavaScript
// compares strings, and looked up in place by binary search over the lines' offsets. Building a
// Map of every line instead cost 70-230 ms of a process's first search (21k English stems,
// 60k Chinese words, measured under load); the offsets cost a few ms. Lines starting with #
// and empty lines are skipped.

export class SortedLines {
  /** Where each word's line starts. */
  private readonly starts: Int32Array;

  private constructor(
    private readonly text: string,
    starts: number[],
  ) {
    this.starts = Int32Array.from(starts);
  }

  /** The table of `text`, or undefined when its words are not in order (it cannot be searched). */
  static of(text: string): SortedLines | undefined {
    const starts: number[] = [];
    let previous: string | undefined;
    for (let at = 0; at < text.length; ) {
      const newline = text.indexOf("\n", at);
      const end = newline < 0 ? text.length : newline;
      if (end > at && text[at] !== "#") {
        const word = wordAt(text, at, end);
        if (previous !== undefined && !(previous < word)) return undefined;
        previous = word;
        starts.push(at);
      }
      at = end + 1;
    }
    return new SortedLines(text, starts);
  }

  get size(): number {
    return this.starts.length;
  }

  /** What follows the word on its line (after one space), or undefined for a word not there. */
  get(word: string): string | undefined {
    let low = 0;
    let high = this.starts.length - 1;
    while (low <= high) {
      const mid = (low + high) >> 1;
      const start = this.starts[mid]!;
      const end = this.lineEnd(start);
      const found = wordAt(this.text, start, end);
      if (found === word) return this.text.slice(Math.min(start + found.length + 1, end), end);
      if (found < word) low = mid + 1;
      else high = mid - 1;
    }
    return undefined;
  }

  /** Every line's rest, in order (for totals). */
  *rests(): Generator<string> {
    for (const start of this.starts) {
      const end = this.lineEnd(start);
      yield this.text.slice(Math.min(start + wordAt(this.text, start, end).length + 1, end), end);
    }
  }

  private lineEnd(start: number): number {
    const newline = this.text.indexOf("\n", start);
    return newline < 0 ? this.text.length : newline;
  }
}

function wordAt(text: string, start: number, end: number): string {
  const space = text.indexOf(" ", start);
  return text.slice(start, space < 0 || space > end ? end : space);
}
