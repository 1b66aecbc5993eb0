// Regex search over workspace files, by ripgrep when it is installed and by a JS scan of the
// walk otherwise; both return the same matches in the same order. The file set is always
// decided the same way: ignore files, hidden files included, `.git` skipped, symlinks not
// followed, binary files skipped. The `glob` filter is applied by us, not passed to rg,
// because rg's --glob overrides ignore files and we want ignored files to stay out.
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { abortError, throwIfAborted } from "../core/abort.js";
import { ResonError } from "../core/errors.js";
import type { PathMatcher } from "./glob.js";
import { spawnChild } from "./processes.js";
import { RegexLineMatcher } from "./regex-worker.js";
import { walkFiles } from "./walk.js";

export type SearchEngine = "ripgrep" | "js";

export interface SearchMatch {
  /** Relative to the workspace root, "/" separators. */
  path: string;
  /** 1-based. */
  line: number;
  /** The matching line, without its line ending, cut to `maxLineChars`. */
  text: string;
}

export interface SearchResult {
  matches: SearchMatch[];
  /** More matches existed than `maxMatches`. */
  truncated: boolean;
  /** The JS walk stopped at its file cap, so some files were not searched. */
  filesTruncated: boolean;
  engine: SearchEngine;
}

export interface SearchScope {
  root: string;
  /** The file or directory to search, relative to the root ("." for all of it). */
  start: string;
  startIsFile: boolean;
  filter: PathMatcher | undefined;
  /** Paths (relative to the root) never searched, with everything beneath them. */
  skip: (path: string) => boolean;
  maxMatches: number;
  maxLineChars: number;
  maxFileBytes: number;
  maxWalkFiles: number;
  /** A file's bytes (path relative to the root), or undefined when too large, binary or unreadable. */
  readFile: (path: string) => Buffer | undefined;
  signal: AbortSignal | undefined;
}

/** Compiles a pattern as a JS RegExp; a leading "(?i)" (ripgrep syntax) becomes the i flag. */
export function compileRegex(pattern: string): RegExp {
  const insensitive = pattern.startsWith("(?i)");
  const source = insensitive ? pattern.slice(4) : pattern;
  try {
    return new RegExp(source, insensitive ? "i" : "");
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new ResonError(
      "tool_invalid_arguments",
      `Invalid regular expression ${JSON.stringify(pattern)}: ${why}`,
      {
        hint: "Escape characters such as ( ) [ ] { } . * + ? | \\ with a backslash to match them literally.",
        details: { field: "pattern" },
      },
    );
  }
}

function cutLine(text: string, maxChars: number): string {
  const line = text.replace(/\r?\n$/, "").replace(/\r$/, "");
  return line.length > maxChars ? `${line.slice(0, maxChars)}…` : line;
}

export async function searchWithJs(
  scope: SearchScope,
  regex: RegExp,
  regexTimeLimitMs?: number,
): Promise<SearchResult> {
  const walked = scope.startIsFile
    ? { files: [scope.start], truncated: false }
    : await walkFiles(scope.root, scope.start, {
        maxFiles: scope.maxWalkFiles,
        skip: scope.skip,
        signal: scope.signal,
      });
  const matches: SearchMatch[] = [];
  const matcher = new RegexLineMatcher(regex, regexTimeLimitMs, scope.signal);
  // Takes a batch's matching lines; true when there are more than maxMatches.
  const take = (tested: Array<{ path: string; text: string; lines: number[] }>): boolean => {
    for (const file of tested) {
      if (file.lines.length === 0) continue;
      const lines = file.text.split("\n");
      for (const index of file.lines) {
        if (matches.length >= scope.maxMatches) return true;
        matches.push({ path: file.path, line: index + 1, text: cutLine(lines[index]!, scope.maxLineChars) });
      }
    }
    return false;
  };
  const left = () => scope.maxMatches + 1 - matches.length;
  try {
    for (const [index, path] of walked.files.entries()) {
      // The reads are synchronous (cheaper than thread-pool round trips): let an abort, or
      // anything else waiting, in between files now and then.
      if (index % 64 === 63) await yieldToEventLoop();
      throwIfAborted(scope.signal);
      if (scope.filter && !scope.startIsFile && !scope.filter(path)) continue;
      const bytes = scope.readFile(path);
      if (bytes === undefined) continue;
      if (take(await matcher.add({ path, text: bytes.toString("utf8") }, left()))) {
        return { matches, truncated: true, filesTruncated: walked.truncated, engine: "js" };
      }
    }
    if (take(await matcher.flush(left()))) {
      return { matches, truncated: true, filesTruncated: walked.truncated, engine: "js" };
    }
  } finally {
    await matcher.close();
  }
  return { matches, truncated: false, filesTruncated: walked.truncated, engine: "js" };
}

interface RgText {
  text?: string;
  bytes?: string;
}

function rgText(value: RgText | undefined): string {
  if (!value) return "";
  if (value.text !== undefined) return value.text;
  return Buffer.from(value.bytes ?? "", "base64").toString("utf8");
}

/**
 * Runs ripgrep. Resolves to "unsupported" when rg cannot parse the pattern (its regex
 * syntax differs from JS: no look-around, for one) or could not open a file whose path is
 * longer than PATH_MAX, so the caller can fall back to JS.
 */
export function searchWithRipgrep(
  scope: SearchScope,
  ripgrep: string,
  pattern: string,
  env: Record<string, string>,
): Promise<SearchResult | "unsupported"> {
  const signal = scope.signal;
  if (signal?.aborted) return Promise.reject(abortError(signal));
  const args = [
    "--json",
    "--sort=path",
    "--hidden",
    "--no-require-git",
    // Only the ignore files inside the tree count, as in the JS walk (ripgrep still reads
    // those in directories above the workspace root; the JS walk does not).
    "--no-ignore-exclude",
    "--no-ignore-global",
    "--no-config",
    "--glob=!.git",
    `--max-filesize=${scope.maxFileBytes}`,
    "--regexp",
    pattern,
    "--",
    scope.start,
  ];
  return new Promise((resolve, reject) => {
    const child = spawnChild(ripgrep, args, { cwd: scope.root, env, stdio: ["ignore", "pipe", "pipe"] });
    const matches: SearchMatch[] = [];
    let truncated = false;
    let pending = "";
    let stderr = "";
    let settled = false;
    const onAbort = () => {
      child.kill("SIGKILL");
      finish(() => reject(abortError(signal)));
    };
    const finish = (settle: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener("abort", onAbort);
      settle();
    };
    signal?.addEventListener("abort", onAbort, { once: true });

    const onLine = (line: string) => {
      if (truncated || !line.startsWith('{"type":"match"')) return;
      const event = JSON.parse(line) as {
        data: { path: RgText; lines: RgText; line_number: number };
      };
      const path = rgText(event.data.path).replace(/^\.\//, "");
      if (scope.skip(path)) return;
      if (scope.filter && !scope.startIsFile && !scope.filter(path)) return;
      if (matches.length >= scope.maxMatches) {
        truncated = true;
        child.kill("SIGTERM");
        return;
      }
      matches.push({
        path,
        line: event.data.line_number,
        text: cutLine(rgText(event.data.lines), scope.maxLineChars),
      });
    };
    child.stdout!.setEncoding("utf8");
    child.stdout!.on("data", (chunk: string) => {
      const lines = (pending + chunk).split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) onLine(line);
    });
    child.stderr!.setEncoding("utf8");
    child.stderr!.on("data", (chunk: string) => {
      if (stderr.length < 10_000) stderr += chunk;
    });
    child.on("error", (error) =>
      finish(() =>
        reject(new ResonError("tool_failed", `Could not run ripgrep: ${error.message}`, { cause: error })),
      ),
    );
    child.on("close", (code) => {
      if (pending) onLine(pending);
      if (truncated || code === 0 || code === 1) {
        finish(() => resolve({ matches, truncated, filesTruncated: false, engine: "ripgrep" }));
        return;
      }
      // rg opens files by path, so it misses those past PATH_MAX (ENAMETOOLONG, errno 36);
      // the JS scan walks by descriptor and reaches them.
      if (/regex parse error|error parsing regex|\(os error 36\)/i.test(stderr)) {
        finish(() => resolve("unsupported"));
        return;
      }
      if (matches.length > 0) {
        // Exit 2 with matches: some files could not be read; keep what was found.
        finish(() => resolve({ matches, truncated, filesTruncated: false, engine: "ripgrep" }));
        return;
      }
      finish(() =>
        reject(new ResonError("tool_failed", `ripgrep failed: ${stderr.trim() || `exit code ${code}`}`)),
      );
    });
  });
}
