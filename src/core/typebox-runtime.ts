// TypeBox's value checker and schema compiler, the only way reson code reaches them. The CLI
// bundle replaces this module with one that loads them on first use (scripts/bundle-cli.mjs):
// initialising their modules was ~2 ms of every start, for a run that may check nothing.
import { Compile } from "typebox/compile";
import { Value } from "typebox/value";

export const typeboxValue = (): typeof Value => Value;
export const typeboxCompile = (): typeof Compile => Compile;
