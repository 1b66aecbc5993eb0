// The package version, read from package.json without loading anything else.
import { readFileSync } from "node:fs";

export function packageVersion(): string {
  const text = readFileSync(new URL("../../package.json", import.meta.url), "utf8");
  return (JSON.parse(text) as { version: string }).version;
}
