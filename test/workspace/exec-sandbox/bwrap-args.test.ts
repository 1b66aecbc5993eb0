// The bwrap command line compiled from a policy, as a snapshot (the mount order is the
// security argument, so it is spelled out here), and the folders that are refused as writable.
import { describe, expect, it } from "vitest";
import { ResonError } from "../../../src/core/errors.js";
import { type BwrapPlan, bwrapArgs, type PathInfo } from "../../../src/workspace/exec-sandbox/bwrap-args.js";
import {
  DEFAULT_COMMAND_LIMITS,
  toolchainFolders,
  type WorkspacePolicy,
} from "../../../src/workspace/policy.js";
import { PROTECTED_LIST } from "../../../src/workspace/protected-list.js";

const HOME = "/home/ada";
const ROOT = "/home/ada/proj";

function policy(overrides: Partial<WorkspacePolicy> = {}): WorkspacePolicy {
  return {
    root: ROOT,
    protected: PROTECTED_LIST,
    protectedKinds: ["executes"],
    home: HOME,
    sealed: [],
    readDeny: [HOME, "/root", "/run", "/var/run", `${ROOT}/.state`],
    writeExtra: [],
    readOnlyExtra: [],
    readOnly: false,
    network: "none",
    limits: { ...DEFAULT_COMMAND_LIMITS, fileSizeBytes: 1024 ** 3, openFiles: 4096 },
    ...overrides,
  };
}

const dir = (realPath: string, symlink = false): PathInfo => ({ kind: "dir", realPath, symlink });

/** /var/run links to /run; reson's own folder is inside the workspace. */
const facts = new Map<string, PathInfo>([
  [HOME, dir(HOME)],
  ["/root", dir("/root")],
  ["/run", dir("/run")],
  ["/var/run", dir("/run", true)],
  [`${ROOT}/.state`, dir(`${ROOT}/.state`)],
]);

/** A repository (.git exists), a .vscode folder holding tasks, no .reson and no .claude. */
const protection = {
  readOnly: [`${ROOT}/.vscode`, `${ROOT}/.git`],
  placeholders: [`${ROOT}/.reson`, `${ROOT}/.claude`],
  mountPoints: [],
};

function plan(overrides: Partial<BwrapPlan> = {}): BwrapPlan {
  return {
    policy: policy(),
    facts,
    protection,
    home: HOME,
    cwd: ROOT,
    disableUserns: true,
    seccompFd: 3,
    prlimit: { path: "/usr/bin/prlimit", nproc: false },
    shell: "/bin/bash",
    command: "make test",
    ...overrides,
  };
}

describe("bwrap argv", () => {
  it("hides home and reson's folder, binds the workspace, re-binds protected paths read-only, puts placeholders for missing ones", () => {
    expect(bwrapArgs(plan()).join(" ")).toBe(
      [
        "--die-with-parent --new-session --unshare-all --unshare-user --as-pid-1 --disable-userns --cap-drop ALL --hostname sandbox",
        "--ro-bind / / --proc /proc --dev /dev --ro-bind /proc/sys /proc/sys",
        "--size 268435456 --tmpfs /tmp --size 67108864 --tmpfs /dev/shm --size 16777216 --tmpfs /run",
        // /run and /var/run (a link to it) are covered by the private /run already
        "--size 67108864 --tmpfs /root --size 67108864 --tmpfs /home/ada",
        "--bind /home/ada/proj /home/ada/proj",
        "--ro-bind /home/ada/proj/.git /home/ada/proj/.git",
        "--ro-bind /home/ada/proj/.vscode /home/ada/proj/.vscode",
        // missing protected paths: an empty read-only folder each, while the command runs
        "--perms 0555 --tmpfs /home/ada/proj/.claude --remount-ro /home/ada/proj/.claude",
        "--perms 0555 --tmpfs /home/ada/proj/.reson --remount-ro /home/ada/proj/.reson",
        // hidden folders inside the workspace last: a bind after them would show them again
        "--size 67108864 --tmpfs /home/ada/proj/.state",
        "--chdir /home/ada/proj --seccomp 3",
        "-- /usr/bin/prlimit --fsize=1073741824 --nofile=4096 -- /bin/bash -c make test",
      ].join(" "),
    );
  });

  it("shows toolchains on PATH inside the hidden home folder again, read-only", () => {
    const withTools = new Map(facts);
    withTools.set(`${HOME}/.cargo`, dir(`${HOME}/.cargo`));
    withTools.set(`${HOME}/.local/bin`, dir(`${HOME}/.local/bin`));
    const args = bwrapArgs(
      plan({
        facts: withTools,
        policy: policy({ readOnlyExtra: [`${HOME}/.cargo`, `${HOME}/.local/bin`, `${HOME}/.absent`] }),
      }),
    ).join(" ");
    expect(args).toContain(
      "--tmpfs /home/ada --ro-bind /home/ada/.cargo /home/ada/.cargo --ro-bind /home/ada/.local/bin /home/ada/.local/bin --bind /home/ada/proj",
    );
    expect(args).not.toContain(".absent");
    expect(
      toolchainFolders(
        "/home/ada/.cargo/bin:/home/ada/.pyenv/shims:/home/ada/.pyenv/bin:/home/ada/.local/bin:/home/ada/.ssh/x:/usr/bin:bin",
        HOME,
      ),
    ).toEqual(["/home/ada/.cargo", "/home/ada/.local/bin", "/home/ada/.pyenv", "/home/ada/.ssh/x"]);
  });

  it("makes the folders above a hidden folder inside the workspace mount points, so it cannot be renamed away", () => {
    const hidden = `${ROOT}/.config/reson`;
    const args = bwrapArgs(
      plan({
        policy: policy({ readDeny: [HOME, hidden] }),
        facts: new Map([...facts, [`${ROOT}/.config`, dir(`${ROOT}/.config`)], [hidden, dir(hidden)]]),
      }),
    ).join(" ");
    expect(args).toContain(
      "--bind /home/ada/proj /home/ada/proj --bind /home/ada/proj/.config /home/ada/proj/.config --ro-bind /home/ada/proj/.git",
    );
    expect(args).toMatch(
      /--remount-ro \S+\/\.reson --size 67108864 --tmpfs \/home\/ada\/proj\/\.config\/reson --chdir/,
    );
  });

  it("keeps the command one argument, however it is quoted", () => {
    const command = `echo "a b" 'c' $(id) ; rm -rf / # --bind / /`;
    const args = bwrapArgs(plan({ command }));
    expect(args.at(-1)).toBe(command);
    expect(args.at(-2)).toBe("-c");
  });

  it("in plan mode binds everything read-only; host network, no prlimit and an old bwrap change only their parts", () => {
    const args = bwrapArgs(
      plan({
        policy: policy({ readOnly: true, network: "host", writeExtra: ["/var/cache/build"] }),
        facts: new Map([...facts, ["/var/cache/build", dir("/var/cache/build")]]),
        disableUserns: false,
        prlimit: undefined,
      }),
    ).join(" ");
    expect(args).not.toContain("--disable-userns");
    expect(args).toContain(
      "--unshare-all --unshare-user --as-pid-1 --cap-drop ALL --hostname sandbox --share-net --ro-bind / /",
    );
    expect(args).toContain(
      "--ro-bind /home/ada/proj /home/ada/proj --ro-bind /var/cache/build /var/cache/build",
    );
    expect(args).toContain("--size 67108864 --tmpfs /home/ada/proj/.state --chdir");
    expect(args).not.toContain("--bind /home/ada/proj/.git");
    expect(args).toMatch(/--seccomp 3 -- \/bin\/bash -c make test$/);
  });

  it("limits processes with prlimit only when there is no cgroup", () => {
    const args = bwrapArgs(plan({ prlimit: { path: "/usr/bin/prlimit", nproc: true } }));
    expect(args).toContain(`--nproc=${DEFAULT_COMMAND_LIMITS.pids}`);
  });

  it("makes the folders on the way to a protected path mount points before binding beneath them", () => {
    const nested = {
      readOnly: [`${ROOT}/.claude/settings.json`],
      placeholders: [`${ROOT}/.claude/settings.local.json`],
      mountPoints: [`${ROOT}/.claude`],
    };
    const args = bwrapArgs(plan({ protection: nested })).join(" ");
    expect(args).toContain(
      "--bind /home/ada/proj /home/ada/proj --bind /home/ada/proj/.claude /home/ada/proj/.claude " +
        "--ro-bind /home/ada/proj/.claude/settings.json /home/ada/proj/.claude/settings.json " +
        "--perms 0555 --tmpfs /home/ada/proj/.claude/settings.local.json",
    );
  });
});

describe("unsafe writable folders", () => {
  function refusal(overrides: Partial<WorkspacePolicy>): ResonError {
    try {
      bwrapArgs(plan({ policy: policy(overrides) }));
    } catch (error) {
      if (error instanceof ResonError) return error;
      throw error;
    }
    throw new Error("expected a refusal");
  }

  it.each([
    ["/", "the whole file system"],
    ["/etc", "a system folder"],
    ["/usr", "a system folder"],
    ["/proc/self", "a kernel file system"],
    [HOME, "the home folder"],
    ["/home", "a system folder"],
  ])("refuses %s as the workspace root (%s)", (root, reason) => {
    const error = refusal({ root, readDeny: [HOME] });
    expect(error.code).toBe("sandbox_refused");
    expect(error.message).toContain(reason);
    expect(error.hint).toMatch(/project folder/);
  });

  it("refuses an ancestor of the home folder", () => {
    let error: unknown;
    try {
      bwrapArgs(plan({ home: "/data/users/ada", policy: policy({ root: "/data/users" }) }));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ResonError);
    expect((error as ResonError).message).toContain("it contains the home folder");
  });

  it("refuses a root that is itself on the hidden list", () => {
    const error = refusal({ root: "/srv/reson-home", readDeny: [HOME, "/srv/reson-home"] });
    expect(error.message).toContain("folders commands must not see");
  });

  it("refuses unsafe extra writable folders the same way", () => {
    const error = refusal({ writeExtra: ["/etc"] });
    expect(error.message).toContain("as the extra writable folder");
    expect(error.hint).toMatch(/narrower/);
  });
});
