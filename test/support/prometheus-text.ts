// Parses the Prometheus text exposition format (what a scrape of /metrics returns) into
// samples, so tests read metrics the way Prometheus would rather than by matching strings.
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parsePrometheusText(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = LINE.exec(line);
    if (!match) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, raw] of (match[2] ?? "").matchAll(LABEL))
      labels[key!] = raw!.replace(/\\n/g, "\n").replace(/\\"/g, '"').replace(/\\\\/g, "\\");
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The sum of the samples of `name` whose labels include `where`. */
export function sumOf(samples: Sample[], name: string, where: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(where).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}
