// The browser tools against real Chromium and pages served on 127.0.0.1, driven by a scripted
// model that reads the refs out of each page state: a login with a password and a TOTP code
// whose values appear in no byte reson keeps or sends, a table extracted once and then kept as
// one line (and an artifact), elements added by a click marked new, a redirect to another
// origin where secrets are not typed and URL-scoped tools change, and file:// refused.
import { randomBytes } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { Type } from "typebox";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAgent, type ResonEvent, SecretVault, type ToolDefinition } from "../../src/index.js";
import { cleanEnv, type TempDir, tempDir } from "../support/cli.js";
import { type FakeModelServer, type FakeReply, startFakeModelServer } from "../support/fake-model-server.js";
import { skipWithout } from "../support/requirements.js";
import { filesUnder, scanForSecret } from "../support/secret-scan.js";
import { lastToolText, refOf, type Site, startSite } from "./site.js";

const TOTP_SEED = "JBSWY3DPEHPK3PXPJBSWY3DPKRUGS4ZA";

function canary(): string {
  return randomBytes(24)
    .toString("base64")
    .replace(/[^A-Za-z0-9]/g, "")
    .slice(0, 28);
}

type Step = (lastTool: string) => FakeReply;
const call = (name: string, args: Record<string, unknown> = {}): FakeReply => ({
  toolCalls: [{ name, arguments: args }],
});

describe.skipIf(await skipWithout("chromium", "browser tools"))("browser tools", () => {
  let server: FakeModelServer;
  let site: Site;
  let ws: TempDir;
  const password = canary();
  beforeEach(async () => {
    server = await startFakeModelServer();
    site = await startSite({ user: "alice", password, totpSeed: TOTP_SEED });
    ws = tempDir();
  });
  afterEach(async () => {
    await server.close();
    await site.close();
    ws.remove();
  });

  /** The model: each step sees the newest tool result and answers. */
  function script(steps: Step[]): void {
    let next = 0;
    server.setResponder((request) => {
      const step = steps[next++];
      return step ? step(lastToolText(request.body)) : { text: "done" };
    });
  }

  async function run(task: string, tools: ToolDefinition[] = []) {
    const secrets = SecretVault.fromDocument(
      { [site.origin]: { shop_password: password, shop_2fa_code: TOTP_SEED } },
      { env: {} },
    );
    const agent = await createAgent({
      workspace: ws.path,
      provider: "openai-compatible",
      baseUrl: server.openaiBaseUrl,
      model: "fake-model",
      env: cleanEnv({ RESON_HOME: ws.home }),
      secrets,
      memory: false,
      tools,
      config: { browser: { allowPrivateHosts: ["127.0.0.1"] } },
    });
    const events: ResonEvent[] = [];
    const result = await agent.run(task, { onEvent: (event) => events.push(event) });
    await agent.close();
    const results = events.filter((e) => e.type === "tool_result") as Array<ResonEvent & { ok?: boolean }>;
    return { result, events, results };
  }

  it("keeps a page's downloads in downloads/ under a name that neither steers nor runs, and never through a link out of it", async () => {
    mkdirSync(join(ws.path, ".git/hooks"), { recursive: true });
    writeFileSync(join(ws.path, ".git/HEAD"), "ref: refs/heads/main\n");
    const get = (name: string) => () => call("browser_navigate", { url: `${site.origin}/get?name=${name}` });
    script([get("report.csv"), get("AGENTS.md"), get(".envrc"), () => call("browser_wait", { ms: 1000 })]);
    const { results } = await run("get the reports");
    expect(results.map((result) => result.ok)).toEqual([true, true, true, true]);
    // Chromium itself drops a name's leading dot (.envrc is offered as envrc).
    expect(readdirSync(join(ws.path, "downloads")).sort()).toEqual([
      "download-AGENTS.md",
      "envrc",
      "report.csv",
    ]);
    expect(readFileSync(join(ws.path, "downloads/report.csv"), "utf8")).toBe("downloaded report.csv\n");
    // A downloads/ that a command made a link into git's hooks: the download is refused.
    rmSync(join(ws.path, "downloads"), { recursive: true });
    symlinkSync(".git/hooks", join(ws.path, "downloads"));
    script([get("pre-commit"), () => call("browser_wait", { ms: 1000 })]);
    const linked = await run("get the hook");
    expect(existsSync(join(ws.path, ".git/hooks/pre-commit"))).toBe(false);
    expect(JSON.stringify(linked.results)).toContain("The download of pre-commit was not kept");
  });

  it("logs in with a password and a TOTP code that appear in nothing reson keeps or sends", async () => {
    script([
      () => call("browser_navigate", { url: `${site.origin}/login` }),
      (page) => call("browser_type", { ref: refOf(page, /textbox "Username"/), text: "alice" }),
      (page) =>
        call("browser_type", {
          ref: refOf(page, /textbox "Password"/),
          text: "<secret>shop_password</secret>",
        }),
      (page) =>
        call("browser_type", {
          ref: refOf(page, /textbox "One-time code"/),
          text: "<secret>shop_2fa_code</secret>",
          submit: true,
        }),
      () => call("browser_screenshot"),
      () => call("browser_extract"),
    ]);
    const { result, events, results } = await run("log into the shop and read the prices");
    expect(result.status).toBe("completed");
    expect(results.map((r) => r.ok)).toEqual([true, true, true, true, true, true]);
    // The real values reached the site, and the login worked.
    expect(site.received.some((r) => r.includes(`password=${password}`))).toBe(true);
    expect(JSON.stringify(events)).toContain("| Teapot | 12.50 | 4 |");
    // The password field shows a mask, and the secret is named, never shown.
    const typed = JSON.stringify(results[2]);
    expect(typed).toContain("Typed the secret shop_password");
    expect(typed).toMatch(/textbox [^:]*Password[^:]*\[ref=e\d+\]: ••••••••/);
    const findings = [password, TOTP_SEED].flatMap((value) =>
      scanForSecret(value, {
        "model requests": JSON.stringify(server.requests.map((r) => r.body)),
        events: JSON.stringify(events),
        ...filesUnder(ws.home),
        ...filesUnder(ws.path),
      }),
    );
    expect(findings).toEqual([]);
    expect(Object.keys(filesUnder(ws.path)).some((path) => path.endsWith(".png"))).toBe(true);
  });

  it("shows an extraction once, then keeps one line naming an artifact that read_artifact reads", async () => {
    let artifact = "";
    script([
      () => call("browser_navigate", { url: `${site.origin}/login` }),
      (page) => call("browser_type", { ref: refOf(page, /textbox "Username"/), text: "alice" }),
      (page) =>
        call("browser_type", {
          ref: refOf(page, /textbox "Password"/),
          text: "<secret>shop_password</secret>",
        }),
      (page) =>
        call("browser_type", {
          ref: refOf(page, /textbox "One-time code"/),
          text: "<secret>shop_2fa_code</secret>",
          submit: true,
        }),
      () => call("browser_extract", { query: "price" }),
      () => call("goal", { action: "add", title: "look again" }),
      () => {
        const memory = JSON.stringify(server.requests.at(-1)?.body);
        artifact = /artifact ([A-Za-z0-9_-]+) \(read_artifact\)/.exec(memory)?.[1] ?? "";
        return call("read_artifact", { id: artifact });
      },
    ]);
    const { results } = await run("read the prices");
    const extract = results[4] as ResonEvent & { content?: string };
    expect(JSON.stringify(extract)).toContain("| Item | Price | Stock |");
    // The request right after the extraction shows the table; two steps later only the line.
    const bodies = server.requests.map((r) => JSON.stringify(r.body));
    expect(bodies[5]).toContain("| Mug | 5.25 | 18 |");
    expect(bodies[6]).not.toContain("| Mug | 5.25 | 18 |");
    expect(bodies[6]).toMatch(/extracted \d+ chars from 127\.0\.0\.1:\d+\/shop for \\"price\\"/);
    expect(artifact).not.toBe("");
    expect(JSON.stringify(results[6])).toContain("| Teapot | 12.50 | 4 |");
  });

  it("a delegated sub-agent browses in its parent's browser, signed in as the parent left it", async () => {
    script([
      () => call("browser_navigate", { url: `${site.origin}/login` }),
      (page) => call("browser_type", { ref: refOf(page, /textbox "Username"/), text: "alice" }),
      (page) =>
        call("browser_type", {
          ref: refOf(page, /textbox "Password"/),
          text: "<secret>shop_password</secret>",
        }),
      (page) =>
        call("browser_type", {
          ref: refOf(page, /textbox "One-time code"/),
          text: "<secret>shop_2fa_code</secret>",
          submit: true,
        }),
      () => call("subagent", { mode: "delegate", task: "read the shop's stock" }),
      () => call("browser_navigate", { url: `${site.origin}/shop` }),
      () => call("browser_extract", { query: "stock" }),
      () => ({ text: "Mug: 18 in stock" }),
    ]);
    const { result, results } = await run("have a helper read the stock");
    expect(result.status).toBe("completed");
    // The child reached /shop without signing in (the parent's cookies: the same browser) and
    // read the table there; its results go to its own model requests, not the parent's events.
    const seen = server.requests.map((r) => lastToolText(r.body));
    expect(seen[6]).toContain(`URL: ${site.origin}/shop`);
    expect(seen[7]).toContain("| Mug | 5.25 | 18 |");
    expect(results.at(-1)).toMatchObject({ name: "subagent", ok: true });
    expect(site.received.filter((r) => r.startsWith("main POST /login"))).toHaveLength(1);
  });

  it("marks the elements a click added as new", async () => {
    script([
      () => call("browser_navigate", { url: `${site.origin}/grow` }),
      (page) => call("browser_click", { ref: refOf(page, /button "Add one"/) }),
    ]);
    const { results } = await run("grow the page");
    const first = JSON.stringify(results[0]);
    const second = JSON.stringify(results[1]);
    expect(first).not.toContain("*[ref=");
    expect(second).toMatch(/button \\"Added later\\" \*\[ref=e\d+\]/);
    expect(second).not.toMatch(/button \\"Add one\\" \*\[ref=/);
  });

  it("after a redirect to another origin, types no secret there and offers that origin's tools", async () => {
    const here: string[] = [];
    const siteTool = (name: string, origin: string): ToolDefinition => ({
      name,
      description: `Only for ${origin}.`,
      parameters: Type.Object({}),
      readOnly: true,
      urlPatterns: [origin],
      execute: async () => ({ content: "ok" }),
    });
    script([
      () => call("browser_navigate", { url: `${site.origin}/login` }),
      () => call("browser_navigate", { url: `${site.origin}/away` }),
      (page) => {
        here.push(page);
        return call("browser_type", {
          ref: refOf(page, /textbox "Password"/),
          text: "<secret>shop_password</secret>",
        });
      },
    ]);
    const { results } = await run("sign in", [
      siteTool("main_helper", site.origin),
      siteTool("other_helper", site.otherOrigin),
    ]);
    expect(here[0]).toContain(`URL: ${site.otherOrigin}/login`);
    expect(results[2]).toMatchObject({ ok: false });
    expect(JSON.stringify(results[2])).toContain("secret_unavailable");
    expect(site.received.join("\n")).not.toContain(password);
    const offered = server.requests.map((r) =>
      ((r.body as { tools?: Array<{ function: { name: string } }> }).tools ?? []).map((t) => t.function.name),
    );
    expect(offered[1]).toContain("main_helper");
    expect(offered[1]).not.toContain("other_helper");
    expect(offered[2]).toContain("other_helper");
    expect(offered[2]).not.toContain("main_helper");
  });

  it("refuses file:// from the model and from the page", async () => {
    script([
      () => call("browser_navigate", { url: "file:///etc/passwd" }),
      () => call("browser_navigate", { url: `${site.origin}/file` }),
      (page) => call("browser_click", { ref: refOf(page, /button "Go local"/) }),
      (page) => call("browser_click", { ref: refOf(page, /link "local file"/) }),
    ]);
    const { results } = await run("read a local file");
    expect(results[0]).toMatchObject({ ok: false });
    expect(JSON.stringify(results[0])).toContain("browser_refused");
    const text = JSON.stringify(results.slice(1));
    expect(text).not.toContain("root:x:0");
    expect(JSON.stringify(results[3])).toContain(`URL: ${site.origin}/file`);
  });

  it("refuses a loopback address that is not allowed", async () => {
    script([() => call("browser_navigate", { url: `${site.origin}/login` })]);
    const agent = await createAgent({
      workspace: ws.path,
      provider: "openai-compatible",
      baseUrl: server.openaiBaseUrl,
      model: "fake-model",
      env: cleanEnv({ RESON_HOME: ws.home }),
      secrets: SecretVault.empty(),
      memory: false,
    });
    const events: ResonEvent[] = [];
    await agent.run("open the local site", { onEvent: (event) => events.push(event) });
    await agent.close();
    const result = events.find((e) => e.type === "tool_result");
    expect(JSON.stringify(result)).toContain("web.allowPrivateHosts");
    expect(site.received).toEqual([]);
  });
});
