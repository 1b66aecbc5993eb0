// Naming a sandbox refusal from a command's output, as shells, coreutils, Python and Node word
// it, so the model reads one stable line instead of guessing.
import { describe, expect, it } from "vitest";
import {
  type DenialContext,
  formatBytes,
  sandboxDenial,
} from "../../../src/workspace/exec-sandbox/annotate.js";
import { DEFAULT_COMMAND_LIMITS, type WorkspacePolicy } from "../../../src/workspace/policy.js";
import { PROTECTED_LIST } from "../../../src/workspace/protected-list.js";
import { protectedTargets } from "../../../src/workspace/protected-targets.js";

const ROOT = "/work/proj";
const policy: WorkspacePolicy = {
  root: ROOT,
  protected: PROTECTED_LIST,
  protectedKinds: ["executes"],
  home: "/home/ann",
  sealed: [],
  readDeny: [],
  writeExtra: [],
  readOnlyExtra: [],
  readOnly: false,
  network: "none",
  limits: { ...DEFAULT_COMMAND_LIMITS, memoryBytes: 512 * 1024 ** 2, pids: 128 },
};

function denial(output: string, extra: Partial<DenialContext> = {}): string | undefined {
  return sandboxDenial({
    output,
    exitCode: 1,
    policy,
    targets: protectedTargets(policy),
    cwd: ROOT,
    outputLimitExceeded: false,
    ...extra,
  });
}

const OUTSIDE = `blocked by sandbox: write outside the workspace (/etc/hosts; only ${ROOT} and /tmp are writable)`;

describe("sandbox denials", () => {
  it.each([
    ["bash", "/bin/bash: line 1: /etc/hosts: Read-only file system"],
    ["dash", "sh: 1: cannot create /etc/hosts: Read-only file system"],
    ["coreutils", "touch: cannot touch '/etc/hosts': Read-only file system"],
    ["python", "OSError: [Errno 30] Read-only file system: '/etc/hosts'"],
    ["node", "Error: EROFS: read-only file system, open '/etc/hosts'"],
  ])("names a write outside the workspace as %s reports it", (_, output) => {
    expect(denial(output)).toBe(OUTSIDE);
  });

  it("names a protected path, relative to the workspace, from a relative path in a subfolder", () => {
    expect(denial("bash: ../.git/config: Read-only file system", { cwd: `${ROOT}/src` })).toBe(
      "blocked by sandbox: .git/config is protected (read-only for commands)",
    );
  });

  it.each([
    ["bash", "/bin/bash: line 1: .envrc: Is a directory"],
    ["python", "IsADirectoryError: [Errno 21] Is a directory: '.vscode/tasks.json'"],
    ["node", "Error: EISDIR: illegal operation on a directory, open '.npmrc'"],
  ])("names a write onto a missing protected path's placeholder as %s reports it", (_, output) => {
    expect(denial(output)).toMatch(
      /^blocked by sandbox: \.(envrc|vscode\/tasks\.json|npmrc) is protected \(read-only for commands\)$/,
    );
    expect(denial("bash: src: Is a directory")).toBeUndefined();
  });

  it("says the workspace is read-only in plan mode", () => {
    expect(denial("bash: notes.txt: Read-only file system", { policy: { ...policy, readOnly: true } })).toBe(
      "blocked by sandbox: the workspace is read-only for this command",
    );
  });

  it.each([
    ["unshare: unshare failed: Operation not permitted", "creating namespaces"],
    ["mount: /: permission denied.", "mounting file systems"],
    ["Error: connect EPERM /run/docker.sock", "Unix sockets (ssh-agent, docker and other host daemons)"],
    ["strace: ptrace(PTRACE_TRACEME, ...): Operation not permitted", "ptrace"],
  ])("names what an EPERM was about: %s", (output, topic) => {
    expect(denial(output)).toBe(
      `blocked by sandbox: ${topic} not allowed (mounts, namespaces, Unix sockets, ptrace, bpf and keyrings are refused)`,
    );
  });

  it.each([
    "curl: (6) Could not resolve host: example.com",
    "ssh: connect to host 127.0.0.1 port 22: Connection refused",
    "getaddrinfo ENOTFOUND registry.npmjs.org",
    "ping: connect: Network is unreachable",
  ])("names the missing network: %s", (output) => {
    expect(denial(output)).toBe("blocked by sandbox: no network access (commands run without a network)");
    expect(denial(output, { policy: { ...policy, network: "host" } })).toBeUndefined();
  });

  it("names limits from the cgroup and the output cap, even when the command exited 0", () => {
    expect(denial("", { exitCode: 0, usage: { oomKills: 1, pidsLimitHits: 0 } })).toBe(
      "blocked by sandbox: memory limit of 512 MiB reached; the kernel killed a process",
    );
    expect(denial("", { exitCode: 0, usage: { oomKills: 0, pidsLimitHits: 3 } })).toBe(
      "blocked by sandbox: process limit of 128 reached; forks were refused",
    );
    expect(denial("y\ny\n", { exitCode: null, outputLimitExceeded: true })).toBe(
      "blocked by sandbox: output limit of 1 MiB reached; the command was stopped",
    );
    expect(denial("", { exitCode: null, diskLimitExceeded: "quota" })).toBe(
      "blocked by sandbox: disk quota of 8 GiB reached (the command grew the disk's use by more); the command was stopped",
    );
    expect(denial("", { exitCode: null, diskLimitExceeded: "full" })).toBe(
      "blocked by sandbox: the disk is nearly full; the command was stopped",
    );
  });

  it("stays silent for ordinary failures and successes", () => {
    expect(denial("cat: nope.txt: No such file or directory")).toBeUndefined();
    expect(denial("npm ERR! Test failed", { exitCode: 1 })).toBeUndefined();
    expect(denial("Read-only file system", { exitCode: 0 })).toBeUndefined();
  });

  it("formats sizes in binary units", () => {
    expect([
      formatBytes(1024 ** 3),
      formatBytes(64 * 1024 ** 2),
      formatBytes(65536),
      formatBytes(1000),
    ]).toEqual(["1 GiB", "64 MiB", "64 KiB", "1000 bytes"]);
  });
});

describe("limits named from the output alone (no cgroup)", () => {
  it("names the process limit from the shell's fork complaint", () => {
    expect(denial("bash: fork: retry: Resource temporarily unavailable", { exitCode: 0 })).toBe(
      "blocked by sandbox: process limit of 128 reached; forks were refused",
    );
  });

  it("names a file size limit from the exit status", () => {
    expect(denial("", { exitCode: 153 })).toBe("blocked by sandbox: file size limit of 1 GiB reached");
  });
});
