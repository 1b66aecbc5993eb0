// The web view's files (built from web/ into dist/web by `npm run build`): the page at `/` and
// its script and stylesheet under /web/. They hold no data and open without a token; the page
// asks for the token and sends it with every API call. Served with a policy that lets the page
// load only its own files, and its one inline script by hash, and talk only to this server; with
// an ETag, so a page opened again revalidates them without a body (and Chromium keeps the
// script compiled).
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Type } from "typebox";
import { ResonError } from "../core/errors.js";
import { defineRoute, type Route } from "./router.js";

const FILES: Record<string, string> = {
  "index.html": "text/html; charset=utf-8",
  "app.js": "text/javascript; charset=utf-8",
  "app.js.map": "application/json",
  "style.css": "text/css; charset=utf-8",
};

/** The policy, with the hashes of the page's inline scripts (index.html starts the first reads in one). */
function pagePolicy(inlineScripts: string[] = []): string {
  const hashes = inlineScripts.map(
    (body) => ` 'sha256-${createHash("sha256").update(body).digest("base64")}'`,
  );
  return (
    `default-src 'none'; script-src 'self'${hashes.join("")}; style-src 'self'; connect-src 'self'; ` +
    "img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
  );
}

/** The bodies of a page's inline scripts (those without src), as the browser hashes them. */
export function inlineScripts(html: string): string[] {
  return [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((match) => match[1] ?? "");
}

/** dist/web next to this module (dist/server, dist/cli-bundle) or under the checkout (src/server in tests). */
export function findWebRoot(from = dirname(fileURLToPath(import.meta.url))): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    for (const candidate of [join(dir, "web"), join(dir, "dist", "web")])
      if (existsSync(join(candidate, "app.js"))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

export function webRoutes(root = findWebRoot()): Route[] {
  async function send(file: string, req: IncomingMessage, res: ServerResponse): Promise<undefined> {
    const type = FILES[file];
    if (!type)
      throw new ResonError("not_found", `There is no file /web/${file}.`, {
        hint: "Open / for the web view.",
      });
    if (!root)
      throw new ResonError("not_found", "The web view is not built.", {
        hint: "Run `npm run build` in the reson checkout (it builds web/ into dist/web).",
      });
    const path = join(root, file);
    const [info, body] = await Promise.all([stat(path), readFile(path)]);
    // Size and time of the file: a rebuild changes the tag. The 304 repeats the policy (a
    // browser takes a 304's headers into the copy it keeps).
    const headers = {
      etag: `"${info.size.toString(36)}-${Math.trunc(info.mtimeMs).toString(36)}"`,
      "cache-control": "no-cache",
      "content-type": type,
      "content-security-policy": pagePolicy(
        file === "index.html" ? inlineScripts(body.toString("utf8")) : [],
      ),
    };
    if (req.headers["if-none-match"] === headers.etag) {
      res.writeHead(304, headers);
      res.end();
      return undefined;
    }
    res.writeHead(200, headers);
    res.end(body);
    return undefined;
  }
  return [
    defineRoute({
      method: "GET",
      path: "/",
      summary: "The web view (asks for the token; keeps it in the browser tab's session storage)",
      tags: ["web"],
      auth: "none",
      responses: { 200: { description: "The page", contentType: "text/html" } },
      handler: ({ req, res }) => send("index.html", req, res),
    }),
    defineRoute({
      method: "GET",
      path: "/web/:file",
      summary: "The web view's script and stylesheet",
      tags: ["web"],
      auth: "none",
      params: Type.Object({ file: Type.String({ maxLength: 64 }) }),
      responses: { 200: { description: "A static file of the web view", contentType: "text/plain" } },
      handler: ({ params, req, res }) => send(params.file, req, res),
    }),
  ];
}
