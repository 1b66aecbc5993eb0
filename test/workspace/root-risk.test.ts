// Which folders may be a workspace, by real path: never `/`, a system folder, anything the OS
// installed or reson's own folder; the home folder, a folder above it or one holding
// $RESON_HOME only once trusted; any other folder, including a site under /var or a config
// folder under /etc, freely.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { workspaceRootRisk } from "../../src/workspace/index.js";

const places = { home: "/home/ann", resonHome: "/home/ann/.reson" };
const kind = (root: string, where = places) => workspaceRootRisk(root, where).kind;

describe("workspace root risk", () => {
  it.each([
    "/",
    "/etc",
    "/usr",
    "/usr/local",
    "/usr/local/bin",
    "/var",
    "/var/lib",
    "/tmp",
    "/home",
    "/opt",
    "/root",
    "/proc/self",
    "/sys/kernel",
    "/dev/shm",
    "/usr/lib/python3",
    "/usr/share/doc",
    "/bin",
    "/lib/modules",
    "/boot/grub",
    "/home/ann/.reson",
    "/home/ann/.reson/skills/mine",
    "/home/ann/.reson/workspaces",
  ])("refuses %s", (root) => {
    expect(kind(root)).toBe("refused");
  });

  it.each([
    ["/home/ann", "it is your home folder"],
    ["/srv/data/users", "it contains your home folder"],
  ])("asks for trust in %s", (root, reason) => {
    const where = root === "/home/ann" ? places : { home: "/srv/data/users/ann", resonHome: "/srv/r" };
    const risk = workspaceRootRisk(root, where);
    expect(risk).toMatchObject({ kind: "broad" });
    expect(risk.kind === "broad" && risk.reason).toContain(reason);
  });

  it("asks for trust in a folder holding $RESON_HOME, and in root's home /root", () => {
    expect(workspaceRootRisk("/work", { home: "/home/ann", resonHome: "/work/.reson-home" })).toMatchObject({
      kind: "broad",
      reason: expect.stringContaining("it contains reson's own folder"),
    });
    expect(kind("/root", { home: "/root", resonHome: "/root/.reson" })).toBe("broad");
  });

  it.each([
    "/home/ann/code/app",
    "/home/ann/..hidden-project",
    "/usr/local/src/app",
    "/usr/src/linux",
    "/var/www/site",
    "/etc/nginx",
    "/opt/app",
    "/srv/git/repo",
    "/tmp/scratch",
    "/home/ann/.reson/workspaces/default",
    "/home/ann/.reson/workspaces/notes/sub",
  ])("takes %s freely", (root) => {
    expect(kind(root)).toBe("none");
  });

  const base = mkdtempSync(join(tmpdir(), "reson-root-risk-"));
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it("compares $RESON_HOME and the home folder by real path", () => {
    const real = join(base, "real-home");
    mkdirSync(join(real, "project"), { recursive: true });
    symlinkSync(real, join(base, "link-home"));
    const where = { home: join(base, "link-home"), resonHome: join(base, "link-home", ".reson") };
    expect(kind(real, where)).toBe("broad");
    expect(kind(join(real, "project"), where)).toBe("none");
    expect(kind(join(real, ".reson"), where)).toBe("refused");
  });
});
