// PID 1 of a fresh PID namespace (see pid-namespace.ts): runs one command and, the moment it
// exits, writes every other process still in the namespace to the file named first: what
// the command left behind, running or as an unreaped zombie (Node reaps only its own).
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";

const [out, command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: "inherit" });
child.on("exit", (code, signal) => {
  const left = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
      left.push({ pid: Number(name), comm, state });
    } catch {
      // gone meanwhile
    }
  }
  writeFileSync(out, JSON.stringify({ code, signal, left }));
  process.exit(0);
});
