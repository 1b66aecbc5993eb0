// The two packages the SQLite store loads from node_modules, both CommonJS: taken with
// require(), not import() (an ES import of a CommonJS package lexes its source for exports,
// and sqlite-vec's ES entry imports node:process, whose ES facade loads the diagnostic report
// module), and only when a store opens. The command's bundle (scripts/bundle-cli.mjs) puts its own
// copy of better-sqlite3's JavaScript in place of this require, so a run does not resolve,
// read and compile its fifteen files; the native addon is still found and loaded by the
// package's own code in node_modules.
import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";

const nodeRequire = createRequire(import.meta.url);

export function requireBetterSqlite3(): typeof BetterSqlite3 {
  return nodeRequire("better-sqlite3") as typeof BetterSqlite3;
}

export function requireSqliteVec(): typeof import("sqlite-vec") {
  return nodeRequire("sqlite-vec") as typeof import("sqlite-vec");
}
