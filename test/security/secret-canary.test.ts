// A canary secret used by a scripted run, in a command and in a URL tool, must never appear
// in any byte reson keeps or sends: not under $RESON_HOME, not in the workspace (beyond the
// file the task wrote on purpose), not on stdout or stderr in either output mode, and not in
// any request the model server received, in any common encoding. The echo server proves the
// real values did reach the places they were meant for.
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cleanEnv, parseEvents, runCli } from "../support/cli.js";
import { useCliFixture } from "../support/cli-fixture.js";
import { skipWithout } from "../support/requirements.js";
import { filesUnder, scanForSecret } from "../support/secret-scan.js";

const noSandbox = await skipWithout("sandbox", "secrets never leak");

function canary(): string {
  // Letters and digits only, so no shell or JSON escaping hides a form of it.
  return randomBytes(24)
    .toString("base64")
    .replace(/[^A-Za-z0-9]/g, "")
    .slice(0, 28);
}

interface Echo {
  server: Server;
  port: number;
  received: string[];
}

/** Answers every request with what it received: request line, headers and body. */
async function startEcho(): Promise<Echo> {
  const received: string[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
    });
    req.on("end", () => {
      const text = `${req.method} ${req.url}\n${JSON.stringify(req.headers)}\n\n${body}`;
      received.push(text);
      res.writeHead(200, { "content-type": "text/plain" });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("no port");
  return { server, port: address.port, received };
}

describe("secrets never leak", () => {
  const f = useCliFixture();
  let echo: Echo;
  beforeEach(async () => {
    echo = await startEcho();
    // The echo server is on loopback, which web_fetch reaches only when the user allows it.
    writeFileSync(
      join(f.home.path, "config.json"),
      JSON.stringify({ web: { allowPrivateHosts: ["127.0.0.1"] } }),
    );
  });
  afterEach(async () => {
    await new Promise<void>((resolve) => echo.server.close(() => resolve()));
  });

  for (const mode of ["json", "human"] as const) {
    it.skipIf(noSandbox)(
      `keeps a canary out of every byte reson writes or sends (${mode} output)`,
      async () => {
        const commandSecret = canary();
        const webSecret = canary();
        const totpSeed = "JBSWY3DPEHPK3PXPJBSWY3DP";
        // The file names environment variables: it holds no value itself, so it is scanned too.
        writeFileSync(
          join(f.home.path, "secrets.json"),
          JSON.stringify({
            "workspace:*": { deploy_key: { env: "CANARY_COMMAND" } },
            [`http://127.0.0.1:${echo.port}`]: {
              api_token: { env: "CANARY_WEB" },
              site_2fa_code: { env: "CANARY_TOTP" },
            },
          }),
          { mode: 0o600 },
        );
        const command = [
          'printf "%s\\n" "<secret>deploy_key</secret>"',
          'printf %s "<secret>deploy_key</secret>" | base64',
          'printf %s "<secret>deploy_key</secret>" | od -An -tx1 | tr -d " \\n"; echo',
          "printf %s '<secret>deploy_key</secret>' > kept.txt",
          'echo "in stderr: <secret>deploy_key</secret>" >&2',
        ].join("; ");
        f.server.setResponder((request) =>
          JSON.stringify(request.body).includes("keep a short list of reusable rules")
            ? {
                text: "ADD: WHEN a deploy key is needed THEN pass <secret>deploy_key</secret> as an environment variable.",
              }
            : undefined,
        );
        f.server.enqueue(
          {
            toolCalls: [
              { name: "execute_command", arguments: { command } },
              {
                name: "web_fetch",
                arguments: {
                  url: `http://127.0.0.1:${echo.port}/login?token=<secret>api_token</secret>`,
                  method: "POST",
                  headers: { authorization: "Bearer <secret>api_token</secret>" },
                  body: JSON.stringify({
                    token: "<secret>api_token</secret>",
                    otp: "<secret>site_2fa_code</secret>",
                  }),
                },
              },
            ],
          },
          {
            toolCalls: [
              { name: "read_file", arguments: { path: "kept.txt" } },
              {
                name: "execute_command",
                arguments: { command: 'echo "<secret>deploy_key</secret>"; exit 3' },
              },
            ],
          },
          { text: "Done." },
        );
        const result = await runCli(
          [
            "run",
            ...(mode === "json" ? ["--json"] : []),
            "--provider",
            "openai-compatible",
            "--base-url",
            f.server.openaiBaseUrl,
            "--allow",
            "web_fetch",
            "use the secrets",
          ],
          {
            cwd: f.ws.path,
            env: cleanEnv({
              RESON_HOME: f.home.path,
              // Reflection reads the run's transcript: it must see placeholders only, too.
              RESON_MEMORY_REFLECT: "always",
              OPENAI_API_KEY: "sk-test-canary-free",
              CANARY_COMMAND: commandSecret,
              CANARY_WEB: webSecret,
              CANARY_TOTP: totpSeed,
            }),
            timeoutMs: 60_000,
          },
        );
        expect(result.stderr).not.toContain("reson:");
        expect(result.code).toBe(0);

        // The values reached where they belong: the command wrote the real one, the site got its own.
        const kept = filesUnder(f.ws.path);
        expect(kept[join(f.ws.path, "kept.txt")]?.toString()).toBe(commandSecret);
        expect(echo.received.join("\n")).toContain(webSecret);
        expect(echo.received.join("\n")).not.toContain(commandSecret);
        expect(echo.received.join("\n")).toMatch(/"otp":"\d{6}"/);

        // The model saw placeholders where the values came back.
        const requests = JSON.stringify(f.server.requests);
        // The reflection ran and saw the run (placeholders included), so it is in the scan below.
        expect(requests).toContain("keep a short list of reusable rules");
        expect(requests).toContain("<secret>deploy_key</secret>");
        expect(requests).toContain("<secret>api_token</secret>");
        if (mode === "json") {
          const results = parseEvents(result.stdout).filter((event) => event.type === "tool_result");
          expect(results.length).toBe(4);
          // Only masking can turn the command's output back into placeholders.
          expect(JSON.stringify(results[0])).toContain("in stderr: <secret>deploy_key</secret>");
          expect(JSON.stringify(results[1])).toContain("Bearer <secret>api_token</secret>");
        }

        const sources: Record<string, Buffer | string> = {
          ...filesUnder(f.home.path),
          ...filesUnder(f.ws.path, (path) => path === join(f.ws.path, "kept.txt")),
          stdout: result.stdout,
          stderr: result.stderr,
          "model requests": requests,
          "model request headers": JSON.stringify(f.server.requests.map((r) => r.headers)),
        };
        expect(scanForSecret(commandSecret, sources)).toEqual([]);
        expect(scanForSecret(webSecret, sources)).toEqual([]);
        expect(scanForSecret(totpSeed, sources)).toEqual([]);
      },
      90_000,
    );
  }

  it("refuses a secret outside its scope, and a secrets file others can read", async () => {
    const webSecret = canary();
    writeFileSync(
      join(f.home.path, "secrets.json"),
      JSON.stringify({ "https://api.example.com": { api_token: { env: "CANARY_WEB" } } }),
      { mode: 0o600 },
    );
    f.server.enqueue(
      {
        toolCalls: [
          {
            name: "web_fetch",
            arguments: {
              url: `http://127.0.0.1:${echo.port}/`,
              headers: { authorization: "<secret>api_token</secret>" },
            },
          },
        ],
      },
      { text: "ok" },
    );
    const env = cleanEnv({ RESON_HOME: f.home.path, OPENAI_API_KEY: "sk-test", CANARY_WEB: webSecret });
    const args = ["run", "--json", "--provider", "openai-compatible", "--base-url", f.server.openaiBaseUrl];
    const run = await runCli([...args, "--allow", "web_fetch", "go"], {
      cwd: f.ws.path,
      env,
      timeoutMs: 30_000,
    });
    expect(run.code).toBe(0);
    const toolResult = parseEvents(run.stdout).find((event) => event.type === "tool_result");
    expect(JSON.stringify(toolResult)).toContain("secret_unavailable");
    expect(echo.received).toEqual([]);

    writeFileSync(join(f.home.path, "secrets.json"), "{}", { mode: 0o644 });
    const { chmodSync } = await import("node:fs");
    chmodSync(join(f.home.path, "secrets.json"), 0o644);
    const insecure = await runCli([...args, "go"], { cwd: f.ws.path, env, timeoutMs: 30_000 });
    expect(insecure.code).toBe(2);
    expect(insecure.stderr).toContain("chmod 600");
  }, 60_000);
});
