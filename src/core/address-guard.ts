// Where web_fetch and the browser may go: http and https only, and never to loopback, private
// or link-local addresses unless the user named the host in `web.allowPrivateHosts`. The same
// check serves the model's requests, every redirect they meet and every request a page makes
// itself, so neither a URL nor a page can send the agent (or its cookies) to file:, chrome: or
// the local network.
import { isIP } from "node:net";

/** Why `url` may not be requested, or undefined when it may. */
export function refusalFor(url: string, allowPrivateHosts: readonly string[]): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${JSON.stringify(url)} is not a URL`;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    return `only http and https URLs are opened, not ${parsed.protocol}`;
  const host = parsed.hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "");
  if (!isPrivateHost(host)) return undefined;
  if (allowPrivateHosts.some((allowed) => allowed.toLowerCase() === host)) return undefined;
  return `${host} is a loopback or private address; add it to web.allowPrivateHosts in the config to allow it`;
}

/** Requests a page may make that are not network requests (inline data) and need no check. */
export function isLocalScheme(url: string): boolean {
  return /^(data|blob|about):/i.test(url);
}

/**
 * Loopback, private, link-local and unspecified addresses, and names that mean this machine.
 * A public name resolving to a private address is not caught here (no DNS lookup per request).
 */
export function isPrivateHost(host: string): boolean {
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  const kind = isIP(host);
  if (kind === 4) return isPrivateV4(host);
  if (kind === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(host);
    if (mapped?.[1]) return isPrivateV4(mapped[1]);
    // The URL parser writes a mapped IPv4 address in hex: ::ffff:7f00:1 is 127.0.0.1.
    const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(host);
    if (hex?.[1] && hex[2]) {
      const high = Number.parseInt(hex[1], 16);
      const low = Number.parseInt(hex[2], 16);
      return isPrivateV4(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`);
    }
    const lower = host.toLowerCase();
    return (
      lower === "::1" ||
      lower === "::" ||
      /^f[cd][0-9a-f]{2}:/.test(lower) ||
      /^fe[89ab][0-9a-f]:/.test(lower)
    );
  }
  return false;
}

function isPrivateV4(host: string): boolean {
  const [a = 0, b = 0] = host.split(".").map(Number);
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168)
  );
}
