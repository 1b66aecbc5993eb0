// The one place pi-ai is loaded, lazily: importing it costs more than half a second, and
// `reson --version` or `--help` must not pay for it. Everything else imports its types only.
export type PiAi = typeof import("@mariozechner/pi-ai");

let loading: Promise<PiAi> | undefined;

export function loadPiAi(): Promise<PiAi> {
  loading ??= import("@mariozechner/pi-ai");
  return loading;
}
