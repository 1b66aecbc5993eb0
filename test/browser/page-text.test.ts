// The pure parts of the browser: which addresses it refuses, how password values are masked
// in a snapshot, how a snapshot is cut, what an extraction query keeps, and the permission
// rule form `browser(domain:…)`.
import { describe, expect, it } from "vitest";
import { filterByQuery } from "../../src/browser/extract.js";
import { cutToBudget, MASK, maskPasswords, refusalFor } from "../../src/browser/index.js";
import { createPolicy, evaluate } from "../../src/permissions/index.js";

describe("where the browser may go", () => {
  it("opens public http and https pages", () => {
    expect(refusalFor("https://example.com/a", [])).toBeUndefined();
    expect(refusalFor("http://93.184.216.34/", [])).toBeUndefined();
  });

  it("refuses other schemes and private addresses, unless the host is allowed", () => {
    for (const url of ["file:///etc/passwd", "chrome://settings", "javascript:alert(1)", "ftp://x.org/"])
      expect(refusalFor(url, [])).toMatch(/only http and https URLs are opened/);
    for (const url of [
      "http://127.0.0.1:8080/",
      "http://localhost/",
      "http://app.localhost/",
      "http://10.1.2.3/",
      "http://172.20.0.1/",
      "http://192.168.1.1/",
      "http://169.254.169.254/latest/meta-data",
      "http://[::1]/",
      "http://[fd00::1]/",
      "http://[::ffff:127.0.0.1]/",
      "http://0.0.0.0/",
    ])
      expect(refusalFor(url, []), url).toMatch(/web\.allowPrivateHosts/);
    expect(refusalFor("http://127.0.0.1:8080/", ["127.0.0.1"])).toBeUndefined();
    expect(refusalFor("http://10.0.0.1/", ["127.0.0.1"])).toMatch(/private/);
  });
});

describe("page snapshots", () => {
  it("masks a password field's value and leaves other fields as they are", () => {
    const snapshot = [
      '- textbox "User" [ref=e5]: alice',
      '- textbox "Password" [active] [ref=e7]: hunter2secret',
    ].join("\n");
    const masked = maskPasswords(snapshot, ["hunter2secret"]);
    expect(masked).toContain(`[ref=e7]: ${MASK}`);
    expect(masked.split("\n")[0]).toContain(": alice");
  });

  it("cuts whole lines at the budget and says how many are left", () => {
    const text = Array.from({ length: 400 }, (_, i) => `- listitem "row ${i}" [ref=e${i}]`).join("\n");
    const cut = cutToBudget(text, 200);
    expect(cut.length).toBeLessThan(text.length);
    expect(cut).toMatch(/\[snapshot cut at about 200 tokens: \d+ more lines/);
    expect(
      cut
        .split("\n")
        .slice(0, -1)
        .every((line) => text.includes(line)),
    ).toBe(true);
  });

  it("keeps a table's header and the rows a query mentions", () => {
    const page = [
      "# Shop",
      "Welcome",
      "| Item | Cost |",
      "| --- | --- |",
      "| Teapot | 12 |",
      "| Mug | 5 |",
      "## Help",
      "Ask us",
    ].join("\n");
    expect(filterByQuery(page, "mug")).toBe(
      ["# Shop", "| Item | Cost |", "| --- | --- |", "| Mug | 5 |"].join("\n"),
    );
    expect(filterByQuery(page, "cost")).toContain("| Teapot | 12 |");
    expect(filterByQuery(page, "nothing-here")).toMatch(/nothing on the page mentions/);
  });
});

describe("browser permission rules", () => {
  const context = { workspaceRoot: "/w", userHome: "/home/u" };
  const policy = (allow: string[]) =>
    createPolicy([
      { source: { kind: "flags", root: "/w" }, permissions: { allow, defaultMode: "acceptEdits" } },
    ]);

  it("browser(domain:…) allows navigation to those hosts only", () => {
    const rules = policy(["browser(domain:*.example.com)"]);
    const go = (url: string) => evaluate({ tool: "browser_navigate", arguments: { url } }, rules, context);
    expect(go("https://shop.example.com/").behavior).toBe("allow");
    expect(go("https://example.org/").behavior).toBe("ask");
    const click = evaluate({ tool: "browser_click", arguments: { ref: "e1" } }, rules, context);
    expect(click.behavior).toBe("ask");
  });

  it("a bare browser rule covers every browser tool", () => {
    const rules = policy(["browser"]);
    for (const tool of ["browser_navigate", "browser_type", "browser_click", "browser_screenshot"])
      expect(evaluate({ tool, arguments: { url: "https://x.org/" } }, rules, context).behavior).toBe("allow");
  });
});
