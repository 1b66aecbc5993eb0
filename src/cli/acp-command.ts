// `reson acp`: the Agent Client Protocol on stdin and stdout, for editors (Zed, JetBrains IDEs,
// Neovim, Emacs) and headless clients (acpx). stdout carries nothing but protocol (stray
// console output goes to stderr, with reson's own log lines); the command returns when the
// editor closes the connection or on SIGTERM/SIGINT, leaving any run in flight resumable.
import { Readable, Writable } from "node:stream";
import type { Handshake } from "../acp/index.js";
import { toResonError } from "../core/errors.js";
import type { RunSpec } from "../runner/index.js";
import { EXIT_OK, EXIT_USAGE } from "./exit-codes.js";
import { type AcpArgs, parseAcpArgs } from "./run-args.js";
import { keepStdoutForEvents, reportError } from "./run-command.js";
import { packageVersion } from "./version.js";

export const ACP_HELP = `Usage: reson acp [options]

Serves the Agent Client Protocol on stdin and stdout: an editor (Zed, a JetBrains IDE, Neovim,
Emacs) or acpx starts it and sends the tasks. Each editor session is a reson session in the
usual store; \`reson --continue\` picks it up in the terminal. Logs go to stderr.

Options (every session starts with them; config and environment fill the rest, as for reson run):
  -p, --provider, -m, --model, --base-url, --max-iterations, --max-tokens, --max-cost,
  --max-time, --preset, --permission-mode (default: default, the editor is asked),
  --allow, --deny, --allow-mcp, --sandbox off, --trust-workspace
Keys come from the environment (the editor's agent settings can set it), never a flag.
`;

function specOf(args: AcpArgs): Omit<RunSpec, "workspace"> {
  return {
    ...(args.provider ? { provider: args.provider } : {}),
    ...(args.model ? { model: args.model } : {}),
    ...(args.baseUrl ? { baseUrl: args.baseUrl } : {}),
    ...(args.maxIterations ? { maxIterations: args.maxIterations } : {}),
    ...(Object.keys(args.limits).length > 0 ? { limits: args.limits } : {}),
    ...(args.preset ? { preset: args.preset } : {}),
    ...(args.permissionMode ? { permissionMode: args.permissionMode } : {}),
    allow: args.allow,
    deny: args.deny,
    sandbox: args.sandbox,
    ...(args.trustWorkspace ? { trustWorkspace: true } : {}),
  };
}

/**
 * `early`: the handshake main.ts began before this bundle loaded (initialize already answered);
 * without it (the command called on its own) the handshake happens here.
 */
export async function acpCommand(argv: string[], early?: Promise<Handshake | undefined>): Promise<number> {
  let args: AcpArgs;
  try {
    args = parseAcpArgs(argv);
  } catch (error) {
    reportError(toResonError(error, "usage_error"));
    return EXIT_USAGE;
  }
  if (args.help) {
    process.stdout.write(ACP_HELP);
    return EXIT_OK;
  }
  keepStdoutForEvents();
  const images = await import("../acp/index.js").then((acp) => acp.advertisedImages(argv, process.env));
  const handshake = await (early ?? answerInitializeHere(images));
  // The editor went away before initialize: nothing to serve.
  if (!handshake) return EXIT_OK;
  if (handshake.rest.length > 0) process.stdin.unshift(handshake.rest);
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    const { serveAcp } = await import("../acp/index.js");
    await serveAcp({
      spec: specOf(args),
      clientCapabilities: handshake.clientCapabilities,
      allowMcp: args.allowMcp,
      version: packageVersion(),
      images,
      input: Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
      output: Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
      log: (line) => process.stderr.write(`reson acp: ${line}\n`),
      signal: stop.signal,
    });
    return EXIT_OK;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

async function answerInitializeHere(images: boolean): Promise<Handshake | undefined> {
  const { answerInitialize } = await import("../acp/index.js");
  return answerInitialize(
    { input: process.stdin, write: (line) => process.stdout.write(line) },
    { version: packageVersion(), images },
  );
}
