// Where `reson acp` should run a command when the editor offers `terminal/*` (issue 30): in
// reson's OS sandbox (bwrap), as today, or in the editor's terminal through ACP. Measures both
// ways in one process, alternating after a warm-up:
//   sandbox    runCommand with the sandbox (src/workspace/command.ts), as execute_command runs it
//   plain      runCommand without it (--sandbox off), for reference
//   delegated  the ACP SDK's agent side asking the SDK's client side over an in-memory ndJson
//              stream: terminal/create → wait_for_exit → output → release, the client spawning
//              the command as an editor's terminal does (a shell in the workspace, with the
//              editor's rights)
// and what each lets a command do: write outside the workspace, write a protected path inside
// it (.git/config), read a file outside it, reach a loopback server. Prints medians (min–max).
//   npm run build && node bench/acp-terminal.mjs [--reps 30]
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { agent, client, methods, ndJsonStream } from "@agentclientprotocol/sdk";
import { sandboxWorkspace } from "./sandbox-workspace.mjs";

const at = process.argv.indexOf("--reps");
const reps = at > 0 ? Number(process.argv[at + 1]) : 30;
const workspace = await sandboxWorkspace(resolve(import.meta.dirname, "../dist"));
const { root, shell } = workspace;
const outside = mkdtempSync("/var/tmp/reson-bench-outside-");
writeFileSync(join(outside, "secret.txt"), "outside-secret\n");

// The editor: the SDK's client side with terminal/*, each terminal a shell in the given cwd.
const terminals = new Map();
let nextTerminal = 0;
const editor = client({ name: "bench-editor" })
  .onRequest(methods.client.terminal.create, ({ params }) => {
    const id = `t${nextTerminal++}`;
    const child = spawn(params.command, params.args ?? [], {
      cwd: params.cwd ?? root,
      env: { ...process.env, ...Object.fromEntries((params.env ?? []).map((v) => [v.name, v.value])) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const terminal = { output: "", exit: undefined };
    child.stdout.on("data", (d) => {
      terminal.output += d;
    });
    child.stderr.on("data", (d) => {
      terminal.output += d;
    });
    terminal.exit = new Promise((r) => child.on("close", (exitCode, signal) => r({ exitCode, signal })));
    terminals.set(id, terminal);
    return { terminalId: id };
  })
  .onRequest(methods.client.terminal.waitForExit, ({ params }) => terminals.get(params.terminalId).exit)
  .onRequest(methods.client.terminal.output, ({ params }) => ({
    output: terminals.get(params.terminalId).output,
    truncated: false,
  }))
  .onRequest(methods.client.terminal.release, ({ params }) => {
    terminals.delete(params.terminalId);
    return {};
  })
  .onRequest(methods.client.terminal.kill, () => ({}));
const toEditor = new TransformStream();
const toAgent = new TransformStream();
const agentSide = agent({ name: "bench-agent" }).connect(ndJsonStream(toEditor.writable, toAgent.readable));
editor.connect(ndJsonStream(toAgent.writable, toEditor.readable));

async function delegated(command) {
  const ask = (method, params) => agentSide.client.request(method, { sessionId: "s", ...params });
  const { terminalId } = await ask(methods.client.terminal.create, {
    command: shell,
    args: ["-c", command],
    cwd: root,
  });
  const exit = await ask(methods.client.terminal.waitForExit, { terminalId });
  const { output } = await ask(methods.client.terminal.output, { terminalId });
  await ask(methods.client.terminal.release, { terminalId });
  return { exitCode: exit.exitCode, output };
}

async function inReson(command, sandboxed) {
  const result = await workspace.run(command, sandboxed);
  return { exitCode: result.exitCode, output: result.output ?? result.stdout ?? "" };
}

const WAYS = {
  sandbox: (command) => inReson(command, true),
  plain: (command) => inReson(command, false),
  delegated,
};

async function timed(way) {
  const start = performance.now();
  const result = await WAYS[way]("true");
  if (result.exitCode !== 0) throw new Error(`${way}: ${JSON.stringify(result)}`);
  return performance.now() - start;
}

const times = Object.fromEntries(Object.keys(WAYS).map((way) => [way, []]));
for (let i = 0; i < 5; i++) for (const way of Object.keys(WAYS)) await timed(way);
for (let i = 0; i < reps; i++) for (const way of Object.keys(WAYS)) times[way].push(await timed(way));

// What a command may do, each way.
const listener = createServer((socket) => socket.end());
let connections = 0;
listener.on("connection", () => connections++);
await new Promise((r) => listener.listen(0, "127.0.0.1", r));
const port = listener.address().port;
const probes = [
  [
    "write a file outside the workspace",
    `echo x > ${outside}/written`,
    () => existsSync(join(outside, "written")),
    () => rmSync(join(outside, "written"), { force: true }),
  ],
  [
    "change .git/config (a protected path)",
    "echo '[alias] x = !sh' >> .git/config",
    () => readFileSync(join(root, ".git/config"), "utf8").includes("alias"),
    () => writeFileSync(join(root, ".git/config"), "[core]\n"),
  ],
  [
    "read a file outside the workspace",
    `cat ${outside}/secret.txt`,
    (r) => r.output.includes("outside-secret"),
  ],
  [
    "connect to a loopback server",
    `exec 3<>/dev/tcp/127.0.0.1/${port}`,
    () => connections > 0,
    () => {
      connections = 0;
    },
  ],
];
const allowed = {};
for (const [what, command, happened, undo = () => {}] of probes) {
  allowed[what] = {};
  for (const way of Object.keys(WAYS)) {
    const result = await WAYS[way](`bash -c '${command.replaceAll("'", "'\\''")}' 2>&1`);
    await new Promise((r) => setTimeout(r, 20));
    allowed[what][way] = happened(result) ? "done" : "refused";
    undo();
  }
}
listener.close();
agentSide.close?.();
workspace.remove();
rmSync(outside, { recursive: true, force: true });

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const ways = Object.keys(WAYS);
console.log(
  `Node ${process.version}, ${reps} runs of \`true\` each way, in turn; load average ${loadavg()[0].toFixed(1)} at the end; wall ms`,
);
console.log("| way | median | min–max |");
console.log("|---|---|---|");
for (const way of ways)
  console.log(
    `| ${way} | ${median(times[way]).toFixed(1)} | ${Math.min(...times[way]).toFixed(1)}–${Math.max(...times[way]).toFixed(1)} |`,
  );
console.log(`\n| a command may… | ${ways.join(" | ")} |`);
console.log(`|---|${ways.map(() => "---|").join("")}`);
for (const [what, by] of Object.entries(allowed))
  console.log(`| ${what} | ${ways.map((way) => by[way]).join(" | ")} |`);
