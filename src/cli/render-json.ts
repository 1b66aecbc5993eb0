// --json output: one event per line on stdout, and nothing else there.
import type { ResonEvent } from "../core/events.js";

export function jsonRenderer(out: NodeJS.WritableStream): (event: ResonEvent) => void {
  return (event) => {
    out.write(`${JSON.stringify(event)}\n`);
  };
}
