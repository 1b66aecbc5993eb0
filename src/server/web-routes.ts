// The web view's files (built from web/ into dist/web by `npm run build`): the page at `/` and
// its script and stylesheet under /web/. They hold no data and open without a token; the page
// asks for the token and sends it with every API call. Served with a policy that lets the page
// load only its own files and talk only to this server.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import type { ServerResponse } from "node:http";
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

const PAGE_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; " +
  "base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** dist/web next to this module (dist/server, dist/cli-bundle) or under the checkout (src/server in tests). */
export function findWebRoot(from = dirname(fileURLToPath(import.meta.url))): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    for (const candidate of [join(dir, "web"), join(dir, "dist", "web")])
      if (existsSync(join(candidate, "app.js"))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

export function webRoutes(root = findWebRoot()): Route[] {
  async function send(file: string, res: ServerResponse): Promise<undefined> {
    const type = FILES[file];
    if (!type)
      throw new ResonError("not_found", `There is no file /web/${file}.`, {
        hint: "Open / for the web view.",
      });
    if (!root)
      throw new ResonError("not_found", "The web view is not built.", {
        hint: "Run `npm run build` in the reson checkout (it builds web/ into dist/web).",
      });
    const body = await readFile(join(root, file));
    res.writeHead(200, {
      "content-type": type,
      "content-security-policy": PAGE_POLICY,
      "cache-control": "no-cache",
    });
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
      handler: ({ res }) => send("index.html", res),
    }),
    defineRoute({
      method: "GET",
      path: "/web/:file",
      summary: "The web view's script and stylesheet",
      tags: ["web"],
      auth: "none",
      params: Type.Object({ file: Type.String({ maxLength: 64 }) }),
      responses: { 200: { description: "A static file of the web view", contentType: "text/plain" } },
      handler: ({ params, res }) => send(params.file, res),
    }),
  ];
}
