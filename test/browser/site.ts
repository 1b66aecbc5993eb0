// The sites the browser tests visit, served on 127.0.0.1: a shop behind a login that needs a
// password and a TOTP code, a page that adds elements after a click, a redirect to another
// origin (a second server, so another port: another origin) and a page that tries file://.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { Secret, TOTP } from "otpauth";

export interface Site {
  origin: string;
  /** The other origin (its own server) that /away redirects to. */
  otherOrigin: string;
  /** Every request both servers received: method, URL and body. */
  received: string[];
  close(): Promise<void>;
}

export const SHOP_ROWS = [
  ["Teapot", "12.50", "4"],
  ["Kettle", "30.00", "0"],
  ["Mug", "5.25", "18"],
];

const page = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;

const LOGIN = page(
  "Sign in",
  `<h1>Sign in</h1><form method="post" action="/login">
  <label>Username <input name="user"></label>
  <label>Password <input type="password" name="password"></label>
  <label>One-time code <input name="otp" inputmode="numeric"></label>
  <button type="submit">Sign in</button></form>`,
);

const SHOP = page(
  "Shop",
  `<h1>Shop</h1><p>Signed in.</p><table><thead><tr><th>Item</th><th>Price</th><th>Stock</th></tr></thead><tbody>${SHOP_ROWS.map(
    (row) => `<tr>${row.map((cell) => `<td>${cell}</td>`).join("")}</tr>`,
  ).join("")}</tbody></table>`,
);

const GROW = page(
  "Grow",
  `<h1>Grow</h1><button onclick="const b=document.createElement('button');b.textContent='Added later';document.body.append(b)">Add one</button>`,
);

const FILE = page(
  "Escape",
  `<h1>Escape</h1><a href="file:///etc/passwd">local file</a><button onclick="location.href='file:///etc/passwd'">Go local</button>`,
);

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
    });
    req.on("end", () => resolve(body));
  });
}

async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ server: Server; origin: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("no port");
  return { server, origin: `http://127.0.0.1:${address.port}` };
}

/** `password` and the TOTP seed (base32) the login accepts. */
export async function startSite(credentials: {
  user: string;
  password: string;
  totpSeed: string;
}): Promise<Site> {
  const received: string[] = [];
  const totp = new TOTP({ secret: Secret.fromBase32(credentials.totpSeed) });
  const html = (res: ServerResponse, body: string, status = 200) => {
    res.writeHead(status, { "content-type": "text/html; charset=utf-8" });
    res.end(body);
  };
  const other = await listen(async (req, res) => {
    received.push(`other ${req.method} ${req.url}\n${await readBody(req)}`);
    html(res, LOGIN.replace("Sign in</title>", "Sign in elsewhere</title>"));
  });
  const main = await listen(async (req, res) => {
    const body = await readBody(req);
    received.push(`main ${req.method} ${req.url}\n${body}`);
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname === "/login" && req.method === "POST") {
      const form = new URLSearchParams(body);
      const ok =
        form.get("user") === credentials.user &&
        form.get("password") === credentials.password &&
        totp.validate({ token: form.get("otp") ?? "", window: 1 }) !== null;
      if (!ok) return html(res, page("Sign in failed", "<h1>Wrong password or code</h1>"), 401);
      res.writeHead(303, { location: "/shop", "set-cookie": "session=ok; HttpOnly; Path=/" });
      return res.end();
    }
    if (url.pathname === "/login") return html(res, LOGIN);
    if (url.pathname === "/shop") {
      if (!(req.headers.cookie ?? "").includes("session=ok")) {
        res.writeHead(303, { location: "/login" });
        return res.end();
      }
      return html(res, SHOP);
    }
    if (url.pathname === "/grow") return html(res, GROW);
    if (url.pathname === "/file") return html(res, FILE);
    // A page that downloads the file its query names as soon as it loads (a page picks the name).
    if (url.pathname === "/get") {
      const name = url.searchParams.get("name") ?? "file.txt";
      return html(
        res,
        page(
          "Get",
          `<a id="dl" href="/dl?name=${encodeURIComponent(name)}" download>get</a><script>document.getElementById("dl").click()</script>`,
        ),
      );
    }
    if (url.pathname === "/dl") {
      const name = url.searchParams.get("name") ?? "file.txt";
      res.writeHead(200, {
        "content-type": "application/octet-stream",
        "content-disposition": `attachment; filename="${name}"`,
      });
      return res.end(`downloaded ${name}\n`);
    }
    if (url.pathname === "/away") {
      res.writeHead(302, { location: `${other.origin}/login` });
      return res.end();
    }
    html(res, page("Not found", "<h1>Not found</h1>"), 404);
  });
  return {
    origin: main.origin,
    otherOrigin: other.origin,
    received,
    close: async () => {
      main.server.closeAllConnections();
      other.server.closeAllConnections();
      await Promise.all([
        new Promise<void>((resolve) => main.server.close(() => resolve())),
        new Promise<void>((resolve) => other.server.close(() => resolve())),
      ]);
    },
  };
}

/** The text of the newest tool result in a chat request (OpenAI wire). */
export function lastToolText(body: unknown): string {
  const messages = (body as { messages?: Array<{ role: string; content: unknown }> }).messages ?? [];
  const tool = [...messages].reverse().find((message) => message.role === "tool");
  if (!tool) return "";
  return typeof tool.content === "string" ? tool.content : JSON.stringify(tool.content);
}

/** The ref of the first snapshot line matching `pattern` (e.g. /textbox "Password"/). */
export function refOf(text: string, pattern: RegExp): string {
  for (const line of text.split("\n")) {
    if (!pattern.test(line)) continue;
    const match = /\[ref=([a-z0-9]+)\]/.exec(line);
    if (match?.[1]) return match[1];
  }
  throw new Error(`no element matching ${pattern} in:\n${text}`);
}
