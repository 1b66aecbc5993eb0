// Waits for a file a run's command leaves (e.g. "started.txt"): "inside a command" as a state,
// not a timing.
import { existsSync } from "node:fs";

export async function waitForFile(path: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(path)) {
    if (Date.now() > deadline) throw new Error(`${path} did not appear within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
