// The one way reson says how long something is or takes, for people: "850 ms", "4.2 s",
// "3 min 20 s", "2 h 5 min", "4 d 18 h". Every hint that names a wait and every duration
// shown on the terminal goes through here, so no message says "wait 411480 s".

const UNITS = [
  { name: "d", seconds: 86_400 },
  { name: "h", seconds: 3_600 },
  { name: "min", seconds: 60 },
  { name: "s", seconds: 1 },
] as const;

/** `ms` for people: two units at most, the smaller one dropped when it is zero. */
export function humanDuration(ms: number): string {
  const value = Number.isFinite(ms) ? Math.max(0, ms) : 0;
  if (Math.round(value) < 1000) return `${Math.round(value)} ms`;
  if (value < 9_950) return `${Number((value / 1000).toFixed(1))} s`;
  let seconds = Math.round(value / 1000);
  for (let i = 0; i < UNITS.length - 1; i++) {
    const big = UNITS[i]!;
    const small = UNITS[i + 1]!;
    if (seconds < big.seconds) continue;
    seconds = Math.round(seconds / small.seconds) * small.seconds;
    // Rounding up may reach the unit above: 23 h 59 min 40 s is "1 d", not "24 h".
    if (i > 0 && seconds >= UNITS[i - 1]!.seconds) return humanDuration(seconds * 1000);
    const whole = Math.floor(seconds / big.seconds);
    const rest = (seconds - whole * big.seconds) / small.seconds;
    return rest === 0 ? `${whole} ${big.name}` : `${whole} ${big.name} ${rest} ${small.name}`;
  }
  return `${seconds} s`;
}
