// Named points where a test can make the process die (SIGKILL, nothing flushed), to show that
// what the process was doing at that moment leaves consistent state behind. Off unless the
// environment names a point: RESON_TEST_CRASH_AT=<name> dies the first time the point is
// reached, <name>:<n> the n-th time.

const counts = new Map<string, number>();

/** Dies here if RESON_TEST_CRASH_AT names this point (and this is the time it names). */
export function crashPoint(name: string): void {
  const wanted = process.env.RESON_TEST_CRASH_AT;
  if (!wanted) return;
  const [point, nth] = wanted.split(":");
  if (point !== name) return;
  const seen = (counts.get(name) ?? 0) + 1;
  counts.set(name, seen);
  if (seen === Number(nth ?? "1")) process.kill(process.pid, "SIGKILL");
}
