// Instruction files people write for the agent: AGENTS.md (how to work here), SOUL.md (who
// to be), USER.md (who the user is). This module finds them, reads them with plain fs (they
// may sit above the workspace or in $RESON_HOME) and fits them into character budgets,
// cutting an oversized file in the middle with a visible marker and a warning.
//
// Where they are found, in the order they are rendered:
//   AGENTS.md  $RESON_HOME first, then every folder from the git root (the nearest ancestor of
//              the workspace holding a `.git` folder or file) down to the workspace root; only
//              the workspace root when there is no git root. A project folder without
//              AGENTS.md may have CLAUDE.md instead, read in its place (never both: they are
//              usually the same text).
//   SOUL.md    one persona: the workspace root's, else $RESON_HOME's.
//   USER.md    both, $RESON_HOME's first (who the user is everywhere), then the workspace
//              root's (what holds for this project).
// An empty file counts as absent. A project file that is a symlink is followed only while
// its target stays inside the project (the git root, else the workspace root): a cloned
// repository must not be able to pour ~/.ssh into the prompt. Files in $RESON_HOME are the
// user's own and may link anywhere.
//
// A handful of small files, most of them absent, at every run's start: read synchronously, as
// a trip through the thread pool costs more than the stat or the read itself.
import { lstatSync, readFileSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { throwIfAborted } from "../core/abort.js";
import { isWithin } from "../core/path-within.js";

export type InstructionKind = "agents" | "soul" | "user";

export interface InstructionFile {
  kind: InstructionKind;
  /** "user": from $RESON_HOME; "project": from the git root down to the workspace root. */
  scope: "user" | "project";
  /** Absolute path where the file was found (a symlink's own path, not its target). */
  path: string;
  /** The text to inject: line ends normalised, trailing whitespace dropped, cut to budget. */
  text: string;
  /** Characters of the file (after the same normalisation) before any cut. */
  rawChars: number;
  truncated: boolean;
}

/** Character budgets: per file of each kind, and for all instruction files together. */
export interface InstructionBudgets {
  agents: number;
  soul: number;
  user: number;
  total: number;
}

/** OpenClaw's defaults: 20,000 per bootstrap file, 4,000 for USER.md, 60,000 in all. */
export const DEFAULT_INSTRUCTION_BUDGETS: Readonly<InstructionBudgets> = {
  agents: 20_000,
  soul: 20_000,
  user: 4_000,
  total: 60_000,
};

/** Files larger than this are not read at all (a warning says so). */
export const MAX_INSTRUCTION_FILE_BYTES = 4 * 1024 * 1024;

export interface LoadInstructionsOptions {
  workspaceRoot: string;
  /** $RESON_HOME (config's resonHome()). */
  home: string;
  budgets?: Partial<InstructionBudgets>;
  signal?: AbortSignal;
}

export interface LoadedInstructions {
  files: InstructionFile[];
  /** One line per file that was cut or refused, for the user (not the model). */
  warnings: string[];
}

interface Candidate {
  kind: InstructionKind;
  scope: "user" | "project";
  path: string;
  /** Symlink targets must stay under this folder; null: no limit. */
  confine: string | null;
}

interface ReadFile extends Candidate {
  raw: string;
}

export async function loadInstructions(options: LoadInstructionsOptions): Promise<LoadedInstructions> {
  const { signal } = options;
  const budgets = { ...DEFAULT_INSTRUCTION_BUDGETS, ...options.budgets };
  const warnings: string[] = [];
  const workspace = realOrResolved(options.workspaceRoot);
  const home = realOrResolved(options.home);
  const gitRoot = findGitRoot(workspace, signal);
  const projectTop = gitRoot ?? workspace;
  const projectAgents = { kind: "agents", scope: "project", confine: projectTop } as const;
  const userAgents = { kind: "agents", scope: "user", path: join(home, "AGENTS.md"), confine: null } as const;
  const projectSoul = {
    kind: "soul",
    scope: "project",
    path: join(workspace, "SOUL.md"),
    confine: projectTop,
  } as const;
  const userSoul = { kind: "soul", scope: "user", path: join(home, "SOUL.md"), confine: null } as const;
  const userUser = { kind: "user", scope: "user", path: join(home, "USER.md"), confine: null } as const;
  const projectUser = {
    kind: "user",
    scope: "project",
    path: join(workspace, "USER.md"),
    confine: projectTop,
  } as const;
  const levels = foldersDown(projectTop, workspace);

  const read: ReadFile[] = [];
  const seen = new Set<string>();
  const take = (candidate: Candidate): "read" | "absent" => {
    throwIfAborted(signal);
    const outcome = readCandidate(candidate);
    if (outcome.kind === "absent") return "absent";
    if (outcome.kind === "refused") {
      warnings.push(outcome.warning);
      return "read";
    }
    // The same file reached twice (a level linking to another, home inside the project).
    if (seen.has(outcome.realPath)) return "read";
    seen.add(outcome.realPath);
    if (outcome.text.trim().length === 0) return "absent";
    read.push({ ...candidate, raw: outcome.text });
    return "read";
  };

  take(userAgents);
  for (const dir of levels) {
    if (take({ ...projectAgents, path: join(dir, "AGENTS.md") }) === "absent")
      take({ ...projectAgents, path: join(dir, "CLAUDE.md") });
  }
  if (take(projectSoul) === "absent") take(userSoul);
  take(userUser);
  take(projectUser);

  const caps = shareTotal(
    read.map((file) => Math.min(file.raw.length, budgets[file.kind])),
    budgets.total,
  );
  const files = read.map((file, index): InstructionFile => {
    const cap = caps[index]!;
    const base = { kind: file.kind, scope: file.scope, path: file.path, rawChars: file.raw.length };
    if (file.raw.length <= cap) return { ...base, text: file.raw, truncated: false };
    const cut = cutMiddle(file.raw, cap, file.path);
    const why =
      cap < budgets[file.kind]
        ? `its share (${cap}) of the ${budgets.total}-character total for instruction files`
        : `its budget of ${budgets[file.kind]} characters`;
    warnings.push(
      `${basename(file.path)} at ${file.path} has ${file.raw.length} characters, over ${why}: ` +
        `${cut.cutChars} characters in the middle were left out of the prompt. ` +
        "Shorten the file, or raise the instruction budgets.",
    );
    return { ...base, text: cut.text, truncated: true };
  });
  return { files, warnings };
}

/** The text of a cut: the start and the end of `text`, with a marker naming `source` between. */
export interface MiddleCut {
  text: string;
  /** Characters of `text` left out (0 when it fit). */
  cutChars: number;
}

export function cutMarker(cutChars: number, source: string): string {
  return `[… ${cutChars} characters cut from ${source}; read the file for the rest …]`;
}

/**
 * Fits `text` into `budget` characters (marker included) by keeping its head (7/9 of the
 * room) and its tail (2/9), cut at line ends where one is near, as OpenClaw does (70%/20%).
 * Below the marker's own length only the marker remains.
 */
export function cutMiddle(text: string, budget: number, source: string): MiddleCut {
  if (text.length <= budget) return { text, cutChars: 0 };
  // The marker with the largest count it could show bounds its length; two line breaks join it.
  const room = Math.max(0, budget - cutMarker(text.length, source).length - 2);
  const headRoom = Math.floor((room * 7) / 9);
  const tailRoom = room - headRoom;
  let head = text.slice(0, headRoom);
  const headBreak = head.lastIndexOf("\n");
  if (headBreak >= headRoom / 2) head = head.slice(0, headBreak);
  let tail = tailRoom > 0 ? text.slice(text.length - tailRoom) : "";
  const tailBreak = tail.indexOf("\n");
  if (tailBreak >= 0 && tailBreak <= tailRoom / 2) tail = tail.slice(tailBreak + 1);
  // Never split a surrogate pair.
  if (isHighSurrogate(head.charCodeAt(head.length - 1))) head = head.slice(0, -1);
  if (isLowSurrogate(tail.charCodeAt(0))) tail = tail.slice(1);
  const cutChars = text.length - head.length - tail.length;
  const parts = [head, cutMarker(cutChars, source), tail].filter((part) => part.length > 0);
  return { text: parts.join("\n"), cutChars };
}

/**
 * Caps that keep the sum within `total`: when the wanted sizes add up to more, every file
 * gets at most one equal share c, the smaller ones whole and the rest cut to c (so the
 * nearest AGENTS.md is never starved by the ones before it).
 */
function shareTotal(wanted: readonly number[], total: number): number[] {
  const sum = wanted.reduce((s, n) => s + n, 0);
  if (sum <= total) return [...wanted];
  const ascending = [...wanted].sort((a, b) => a - b);
  let left = total;
  let share = 0;
  for (let i = 0; i < ascending.length; i++) {
    share = Math.floor(left / (ascending.length - i));
    if (ascending[i]! > share) break;
    left -= ascending[i]!;
  }
  return wanted.map((n) => Math.min(n, share));
}

type CandidateOutcome =
  | { kind: "absent" }
  | { kind: "refused"; warning: string }
  | { kind: "read"; realPath: string; text: string };

function readCandidate(candidate: Candidate): CandidateOutcome {
  const { path } = candidate;
  const name = basename(path);
  let target: string;
  try {
    const link = lstatSync(path, { throwIfNoEntry: false });
    if (!link) return { kind: "absent" };
    target = link.isSymbolicLink() ? realpathSync.native(path) : path;
  } catch (error) {
    if (isMissing(error)) return { kind: "absent" };
    return { kind: "refused", warning: `${name} at ${path} could not be read: ${describe(error)}` };
  }
  if (candidate.confine !== null && !isWithin(target, candidate.confine))
    return {
      kind: "refused",
      warning: `${name} at ${path} links to ${target}, outside ${candidate.confine}; it was not read.`,
    };
  try {
    const info = statSync(target);
    if (!info.isFile())
      return { kind: "refused", warning: `${name} at ${path} is not a regular file; it was not read.` };
    if (info.size > MAX_INSTRUCTION_FILE_BYTES)
      return {
        kind: "refused",
        warning: `${name} at ${path} is ${info.size} bytes, more than ${MAX_INSTRUCTION_FILE_BYTES}; it was not read.`,
      };
    const bytes = readFileSync(target);
    if (bytes.includes(0))
      return {
        kind: "refused",
        warning: `${name} at ${path} looks binary (it has NUL bytes); it was not read.`,
      };
    return { kind: "read", realPath: realpathSync.native(target), text: normalise(bytes.toString("utf8")) };
  } catch (error) {
    if (isMissing(error)) return { kind: "absent" };
    return { kind: "refused", warning: `${name} at ${path} could not be read: ${describe(error)}` };
  }
}

/** No BOM, LF line ends, no trailing whitespace: the same file gives the same bytes anywhere. */
function normalise(text: string): string {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  return body.replace(/\r\n?/g, "\n").trimEnd();
}

/** The nearest folder from `start` upwards holding `.git` (a folder, or a file in a worktree). */
function findGitRoot(start: string, signal?: AbortSignal): string | null {
  throwIfAborted(signal);
  for (let dir = start; ; dir = dirname(dir)) {
    try {
      if (lstatSync(join(dir, ".git"), { throwIfNoEntry: false })) return dir;
    } catch (error) {
      if (!isMissing(error)) return null; // unreadable
    }
    if (dirname(dir) === dir) return null;
  }
}

/** `top`, then each folder on the way down to `bottom` (which lies inside `top`). */
function foldersDown(top: string, bottom: string): string[] {
  const folders = [top];
  const rest = relative(top, bottom);
  if (rest === "") return folders;
  let dir = top;
  for (const part of rest.split(sep)) {
    dir = join(dir, part);
    folders.push(dir);
  }
  return folders;
}

function realOrResolved(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return resolve(path);
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code < 0xdc00;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code < 0xe000;
}
