// The bundled subcommands (dist/cli-bundle/commands.cjs), run with a V8 code cache taken
// after a successful run of the same command. Node's own compile cache is taken right after
// a file is compiled, so it holds only the outer functions and every run compiles again each
// function it calls (a third of a one-step `reson run`); this one holds what the command ran.
// It lives in $XDG_CACHE_HOME/reson (~/.cache/reson), a file per bundle file, Node version
// and command; V8 rejects a cache that does not fit its source, version or flags, and the
// next successful run makes it again. A cache V8 takes holds only what the run that made it
// ran, so a later run that ended with more bytecode in the heap (a short `reson acp` session
// first, then one with prompts) takes it again: the heap's bytecode size is noted in the file
// and compared at the end of each run (a lookup, where making the cache costs ~25 ms), so the
// cache follows the longest run and each run after pays nothing. V8 does not check the bytes
// themselves (a damaged cache crashes the process), so a SHA-256 of the rest goes first and is
// checked before use.
// NODE_DISABLE_COMPILE_CACHE=1 turns it off too. (node:crypto and node:vm are taken only
// when a subcommand loads: `reson --version` needs neither.)
import {
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Commands, LoadCommands } from "./main.js";

function cacheFolder(): string {
  const xdg = process.env.XDG_CACHE_HOME?.trim();
  return join(xdg && isAbsolute(xdg) ? xdg : join(homedir(), ".cache"), "reson");
}

const DIGEST_BYTES = 32;
/** The heap's bytecode bytes when the cache was taken, a float64 after the digest. */
const MARK_BYTES = 8;
/**
 * A run takes the cache again only when it ends with this much more bytecode than the run that
 * took it: code it compiled beyond the cache, not the noise between two runs of the same code.
 */
const GROWTH_TO_RETAKE = 1.05;
const STALE_AFTER_MS = 14 * 24 * 3600 * 1000;

const digest = (data: Uint8Array) => process.getBuiltinModule("node:crypto").hash("sha256", data, "buffer");

interface Cache {
  data: Buffer;
  /** The heap's bytecode bytes (bytecodeBytes) at the end of the run that took it. */
  bytecodeBytes: number;
}

/** Bytecode in the heap now: what this process compiled (less what V8 has flushed since). */
const bytecodeBytes = () =>
  process.getBuiltinModule("node:v8").getHeapCodeStatistics().bytecode_and_metadata_size;

/** The cache if it is a file of ours that no one else may write, whole, else undefined. */
function readCache(path: string): Cache | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    const info = fstatSync(fd);
    if (!info.isFile() || info.uid !== process.getuid?.() || (info.mode & 0o022) !== 0) return undefined;
    const file = readFileSync(fd);
    const rest = file.subarray(DIGEST_BYTES);
    if (rest.length <= MARK_BYTES || !digest(rest).equals(file.subarray(0, DIGEST_BYTES))) return undefined;
    return { bytecodeBytes: rest.readDoubleLE(0), data: rest.subarray(MARK_BYTES) };
  } catch {
    return undefined; // none yet
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Best effort: without a cache the next run only compiles as it goes. */
function writeCache(folder: string, name: string, build: { file: string; id: string }, cache: Cache): void {
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const temp = join(folder, `.${name}.${process.pid}.tmp`);
    const mark = Buffer.alloc(MARK_BYTES);
    mark.writeDoubleLE(cache.bytecodeBytes, 0);
    const rest = Buffer.concat([mark, cache.data]);
    writeFileSync(temp, Buffer.concat([digest(rest), rest]), { mode: 0o600 });
    renameSync(temp, join(folder, name));
    // Caches of other builds (older versions, other checkouts) go once they are two weeks
    // old; one still in use is made again by its next successful run.
    const before = Date.now() - STALE_AFTER_MS;
    for (const other of readdirSync(folder)) {
      if (!other.startsWith(`${build.file}@`) || other.startsWith(`${build.file}@${build.id}-`)) continue;
      const path = join(folder, other);
      if (statSync(path).mtimeMs < before) rmSync(path, { force: true });
    }
  } catch {
    // not cached
  }
}

/** Loads the subcommands' bundle at `bundleUrl` for main.ts, with the code cache. */
export function bundledCommands(bundleUrl: URL): LoadCommands {
  return async (command) => {
    const file = fileURLToPath(bundleUrl);
    // The build makes the file ASCII (scripts/bundle-cli.mjs), so Latin-1 reads it as it is,
    // without UTF-8 validation, into a string of one byte per character.
    const source = readFileSync(file, "latin1");
    const enabled = process.env.NODE_DISABLE_COMPILE_CACHE !== "1";
    // V8 checks only the source's length: the name carries the file's identity (a build
    // writes a new file, with a new modification time).
    const info = statSync(file, { bigint: true });
    const build = { file: basename(file), id: `${info.size}-${info.mtimeNs}-${info.ino}` };
    const name = `${build.file}@${build.id}-node${process.version}-${process.arch}-${command}.v8`;
    const folder = cacheFolder();
    const cached = enabled ? readCache(join(folder, name)) : undefined;
    const cachedData = cached?.data;
    const { Script } = process.getBuiltinModule("node:vm");
    // The file is one function expression, the CommonJS module wrapper (scripts/bundle-cli.mjs).
    const script = new Script(source, { filename: file, ...(cachedData ? { cachedData } : {}) });
    const module = { exports: {} as Commands };
    const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
    // Its import() of pi-ai (esm-import.ts) is this module's: a script has none of its own.
    const importEsm = (specifier: string) => import(specifier);
    wrapper(module.exports, createRequire(file), module, file, dirname(file), importEsm);
    return {
      commands: module.exports,
      finished(exitCode) {
        if (!enabled || exitCode !== 0) return;
        const ranCode = bytecodeBytes();
        const taken = cached && !script.cachedDataRejected;
        if (taken && ranCode < cached.bytecodeBytes * GROWTH_TO_RETAKE) return;
        writeCache(folder, name, build, { data: script.createCachedData(), bytecodeBytes: ranCode });
      },
    };
  };
}
