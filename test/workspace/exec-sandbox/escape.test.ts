// The escape table, against the real sandbox: every way out we know of is refused or lands in
// a private copy, and a refusal comes back with a machine-readable reason. Each case that
// depends on what the sandbox hides has a control showing the thing is reachable without it.
import { randomBytes } from "node:crypto";
import { existsSync, type FSWatcher, watch } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CANARY, commandEnv, type Fixture, makeFixture, noSandbox } from "./fixture.js";

let fx: Fixture;

beforeAll(async () => {
  fx = await makeFixture();
});
afterAll(() => fx?.cleanup());

function listen(server: Server, ...args: unknown[]): Promise<void> {
  return new Promise((resolve) => server.listen(...(args as [number, string]), () => resolve()));
}

describe.skipIf(noSandbox)("writes outside the workspace", () => {
  it("refuses /etc with the reason", async () => {
    const result = await fx.run("echo owned > /etc/reson-escape-test");
    expect(result.exitCode).not.toBe(0);
    expect(result.sandboxed).toBe(true);
    expect(result.sandboxDenial).toBe(
      `blocked by sandbox: write outside the workspace (/etc/reson-escape-test; only ${fx.root} and /tmp are writable)`,
    );
    expect(existsSync("/etc/reson-escape-test")).toBe(false);
  });

  it("refuses a folder beside the workspace, also through a symlink in it", async () => {
    const direct = await fx.run(`echo owned > ${fx.outside}/secret.txt`);
    expect(direct.sandboxDenial).toMatch(/^blocked by sandbox: write outside the workspace/);
    const linked = await fx.run(`ln -s ${fx.outside} out && echo owned > out/secret.txt`);
    expect(linked.sandboxDenial).toMatch(/^blocked by sandbox: write outside the workspace/);
    expect(await readFile(join(fx.outside, "secret.txt"), "utf8")).toBe(`${CANARY}\n`);
  });

  it("gives the command a private /tmp and home: the host's stay untouched", async () => {
    const name = `reson-escape-${randomBytes(4).toString("hex")}`;
    const result = await fx.run(`echo owned > /tmp/${name} && echo owned > ~/${name} && cat /tmp/${name}`);
    expect(result.output).toBe("owned\n");
    expect(existsSync(`/tmp/${name}`)).toBe(false);
    expect(existsSync(join(process.env.HOME ?? "/root", name))).toBe(false);
  });
});

describe.skipIf(noSandbox)("reads of hidden folders", () => {
  it("hides ~/.ssh: the home folder is an empty tmpfs at the same path", async () => {
    // A home outside /tmp (which is private anyway), so the control below can see it.
    const home = join(fx.base, "home");
    await mkdir(join(home, ".ssh"), { recursive: true });
    await writeFile(join(home, ".ssh", "id_ed25519"), `${CANARY}\n`);
    const env = { ...commandEnv(), HOME: home };
    const read = "cat ~/.ssh/id_ed25519; ls -A ~; echo HOME=$HOME";

    const control = await fx.run(read, { env, policy: fx.policy() });
    expect(control.output).toContain(CANARY);

    const hidden = await fx.run(read, { env, policy: fx.policy({ readDeny: [home] }) });
    expect(hidden.output).not.toContain(CANARY);
    expect(hidden.output).toContain("No such file or directory");
    expect(hidden.output).toContain(`HOME=${home}`);
  });

  it("hides the real home folder and reson's own folder", async () => {
    const resonHome = join(fx.base, "reson-home");
    await mkdir(resonHome);
    await writeFile(join(resonHome, "sessions.db"), CANARY);
    const policy = fx.policy({ resonHome });
    const result = await fx.run(`ls -A ~; cat ${resonHome}/sessions.db`, { policy });
    expect(result.output).not.toContain(CANARY);
    // Only the toolchains on PATH that live in the home folder (~/.cargo, ~/.pyenv) show, read-only.
    const shown = result.output.split("\n").filter((line) => line && !line.startsWith("cat:"));
    const toolchains = policy.readOnlyExtra
      .filter((dir) => dirname(dir) === homedir())
      .map((dir) => basename(dir));
    expect(shown.sort()).toEqual(toolchains.sort());
  });
});

describe.skipIf(noSandbox)("network and sockets", () => {
  it("cannot reach a TCP server on the host's loopback", async () => {
    let connections = 0;
    const server = createServer((socket) => {
      connections += 1;
      socket.end("hello\n");
    });
    await listen(server, 0, "127.0.0.1");
    const { port } = server.address() as { port: number };
    try {
      const probe = `exec 3<>/dev/tcp/127.0.0.1/${port} && head -1 <&3`;
      const control = await fx.run(probe, { policy: fx.policy({ network: "host" }) });
      expect(control.output).toBe("hello\n");
      connections = 0;

      const result = await fx.run(probe);
      expect(result.exitCode).not.toBe(0);
      expect(result.output).toContain("Connection refused");
      expect(result.sandboxDenial).toBe(
        "blocked by sandbox: no network access (commands run without a network)",
      );
      expect(connections).toBe(0);
    } finally {
      server.close();
    }
  });

  it("has no DNS", async () => {
    const result = await fx.run("getent hosts example.com || exit 2");
    expect(result.exitCode).toBe(2);
  });

  it("cannot connect to a host Unix socket, even one inside the workspace", async () => {
    let connections = 0;
    const path = join(fx.root, "daemon.sock");
    const server = createServer(() => {
      connections += 1;
    });
    await listen(server, path);
    try {
      const result = await fx.run(
        `node -e 'require("net").connect(process.argv[1]).on("connect", () => console.log("CONNECTED")).on("error", (e) => { console.log(e.message); process.exit(3) })' ${path}`,
      );
      expect(result.output).toContain(`connect EPERM ${path}`);
      expect(result.sandboxDenial).toMatch(/^blocked by sandbox: Unix sockets .* not allowed/);
      expect(connections).toBe(0);
    } finally {
      server.close();
    }
  });

  it("still allows socketpair and internet-family sockets (pipes between programs keep working)", async () => {
    const result = await fx.run(
      `python3 -c 'import socket; a, b = socket.socketpair(); a.send(b"pair"); print(b.recv(4).decode()); socket.socket(socket.AF_INET).close()'`,
    );
    expect(result).toMatchObject({ exitCode: 0, output: "pair\n" });
  });
});

describe.skipIf(noSandbox)("mounts, namespaces and kernel features", () => {
  it("cannot remount / writable", async () => {
    const result = await fx.run("mount -o remount,rw / && echo owned > /etc/reson-remount-test");
    expect(result.exitCode).not.toBe(0);
    expect(result.sandboxDenial).toMatch(/^blocked by sandbox: mounting file systems not allowed/);
    expect(existsSync("/etc/reson-remount-test")).toBe(false);
  });

  it("cannot create nested namespaces", async () => {
    const result = await fx.run("unshare -U -r id");
    expect(result.exitCode).not.toBe(0);
    expect(result.output).toContain("Operation not permitted");
    expect(result.sandboxDenial).toMatch(/^blocked by sandbox: creating namespaces not allowed/);
  });

  it("has no capabilities and no way to gain privileges", async () => {
    const result = await fx.run("grep -E '^(CapEff|NoNewPrivs|Seccomp):' /proc/self/status");
    expect(result.output).toMatch(/CapEff:\s+0000000000000000/);
    expect(result.output).toMatch(/NoNewPrivs:\s+1/);
    expect(result.output).toMatch(/Seccomp:\s+2/);
  });

  const perl = existsSync("/usr/bin/perl") && process.arch === "x64";
  it.skipIf(!perl)(
    "answers each refused syscall with EPERM, clone3 with ENOSYS and TIOCSTI with EPERM",
    async () => {
      // x86_64 numbers; arguments are zeros, so without the filter most would fail differently.
      const calls: Record<string, number> = { mount: 165, unshare: 272, setns: 308, ptrace: 101, bpf: 321 };
      Object.assign(calls, {
        keyctl: 250,
        io_uring_setup: 425,
        fsopen: 430,
        userfaultfd: 323,
        perf_event_open: 298,
      });
      const script = [
        ...Object.entries(calls).map(
          ([name, nr]) => `$!=0; syscall(${nr},0,0,0,0,0); print "${name} ", $!+0, "\\n";`,
        ),
        `$!=0; syscall(435,0,0); print "clone3 ", $!+0, "\\n";`,
        `my $c = "x"; $!=0; ioctl(STDIN, 0x5412, $c); print "tiocsti ", $!+0, "\\n";`,
      ].join(" ");
      const result = await fx.run(`perl -e '${script}'`);
      const errno = Object.fromEntries(
        result.output
          .trim()
          .split("\n")
          .map((line) => line.split(" ")),
      );
      const expected = Object.fromEntries(Object.keys(calls).map((name) => [name, "1"]));
      expect(errno).toEqual({ ...expected, clone3: "38", tiocsti: "1" });
    },
  );
});

describe.skipIf(noSandbox)("what the command can learn about the agent", () => {
  it("sees none of the agent's secrets and not the agent's process", async () => {
    process.env.RESON_FAKE_API_KEY = `sk-fake-${CANARY}`;
    process.env.ANTHROPIC_API_KEY = `sk-ant-${CANARY}`;
    try {
      const result = await fx.run(
        `env; cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n'; ls /proc | grep -cE '^[0-9]+$'; cat /proc/${process.pid}/environ; ls -l /proc/self/fd/ | grep -o '[0-9]* -> .*'`,
      );
      expect(result.output).not.toContain(CANARY);
      expect(result.output).toContain(`/proc/${process.pid}/environ: No such file or directory`);
      const visible = Number(/^(\d+)$/m.exec(result.output)?.[1]);
      expect(visible).toBeLessThan(8);
      // Apart from stdout and stderr, no descriptor leads anywhere: whatever the agent itself
      // inherited without close-on-exec is /dev/null in the sandbox.
      const descriptors = [...result.output.matchAll(/^(\d+) -> (.*)$/gm)].map((m) => [m[1], m[2]]);
      for (const [fd, target] of descriptors) {
        if (fd === "1" || fd === "2") expect(target).toMatch(/^(socket|pipe):/);
        else expect(target).toMatch(/^(\/dev\/null|\/proc\/\d+\/fd)$/);
      }
    } finally {
      delete process.env.RESON_FAKE_API_KEY;
      delete process.env.ANTHROPIC_API_KEY;
    }
  });

  it("gets no inotify descriptor while the agent watches folders (as workspace snapshots do), command after command", async () => {
    // The agent's watches live in one inotify instance, whose inheritability is looked up once.
    const folders = ["a", "b", "c"].map((name) => join(fx.root, "watched", name));
    for (const folder of folders) await mkdir(folder, { recursive: true });
    const watchers: FSWatcher[] = folders.map((folder) => watch(folder, { persistent: false }, () => {}));
    try {
      const listings: string[][] = [];
      for (let turn = 0; turn < 2; turn++) {
        const result = await fx.run("ls -l /proc/self/fd/ | grep -o '[0-9]* -> .*'");
        const descriptors = [...result.output.matchAll(/^(\d+) -> (.*)$/gm)].map((m) => `${m[1]} ${m[2]}`);
        for (const line of descriptors) expect(line).not.toContain("inotify");
        // Apart from stdout and stderr (pipes made per command) and ls's own listing.
        listings.push(descriptors.filter((line) => !/^[12] /.test(line) && !line.includes("/proc/")));
      }
      expect(listings[1]).toEqual(listings[0]);
    } finally {
      for (const watcher of watchers) watcher.close();
    }
  });
});
