// Where reson keeps its own files: $RESON_HOME, else ~/.reson.
import { homedir } from "node:os";
import { join, resolve } from "node:path";

export function resonHome(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.RESON_HOME?.trim();
  if (fromEnv) return resolve(fromEnv);
  return join(homedir(), ".reson");
}
