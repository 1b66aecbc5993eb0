// The one URL-pattern matcher of reson: tool availability, navigation and secret scoping all
// ask it. Browser-Use's rules (scheme glob, `*.` subdomain wildcard only, https by default),
// plus IDN → punycode, trailing dots, IPv6 literals, ports and userinfo rejection. Fails closed.
import { domainToASCII } from "node:url";

export type UrlPatternCheck = { ok: true } | { ok: false; reason: string };

type HostRule = { kind: "any" } | { kind: "exact"; host: string } | { kind: "subdomains"; parent: string };

interface ParsedUrlPattern {
  scheme: RegExp;
  host: HostRule;
  /** Only URLs on this port match; undefined matches any port. */
  port: number | undefined;
}

type ParseResult = { ok: true; pattern: ParsedUrlPattern } | { ok: false; reason: string };

const NEW_TAB_PAGES = new Set([
  "about:blank",
  "about:newtab",
  "chrome://new-tab-page",
  "chrome://new-tab-page/",
  "chrome://newtab",
  "chrome://newtab/",
]);

const DEFAULT_PORTS: Record<string, number> = { http: 80, https: 443, ws: 80, wss: 443, ftp: 21 };

/**
 * Whether `url` is covered by `pattern` (`example.com`, `*.example.com`, `http*://host:8080`,
 * `chrome-extension://*`). A pattern without a scheme means https only. An invalid pattern,
 * an unparsable URL, a URL with userinfo and a new-tab page never match.
 */
export function matchUrlPattern(pattern: string, url: string): boolean {
  const parsed = parseUrlPattern(pattern);
  if (!parsed.ok) return false;
  const target = parseTarget(url);
  if (!target) return false;
  const rule = parsed.pattern;
  if (!rule.scheme.test(target.scheme)) return false;
  if (rule.port !== undefined && rule.port !== target.port) return false;
  switch (rule.host.kind) {
    case "any":
      return true;
    case "exact":
      return target.host === rule.host.host;
    case "subdomains":
      return target.host === rule.host.parent || target.host.endsWith(`.${rule.host.parent}`);
  }
}

/** For config validation: says why a pattern would never match anything. */
export function isValidUrlPattern(pattern: string): UrlPatternCheck {
  const parsed = parseUrlPattern(pattern);
  return parsed.ok ? { ok: true } : { ok: false, reason: parsed.reason };
}

interface Target {
  scheme: string;
  host: string;
  port: number | undefined;
}

function parseTarget(raw: string): Target | undefined {
  if (NEW_TAB_PAGES.has(raw.trim().toLowerCase())) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  // `https://example.com@evil.com` goes to evil.com: a URL with userinfo is never trusted.
  if (url.username !== "" || url.password !== "") return undefined;
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  const host = canonicalTargetHost(url.hostname);
  if (!host) return undefined;
  const port = url.port !== "" ? Number(url.port) : DEFAULT_PORTS[scheme];
  return { scheme, host, port };
}

/** Non-special schemes keep an opaque, percent-encoded host; bring it to the same form. */
function canonicalTargetHost(hostname: string): string | undefined {
  if (hostname === "") return undefined;
  let decoded = hostname;
  try {
    decoded = decodeURIComponent(hostname);
  } catch {
    // keep it as it is: a malformed escape simply will not equal any canonical pattern host
  }
  return canonicalHost(decoded) ?? hostname.toLowerCase();
}

/** Lower-case punycode without a trailing dot; IPv4 and IPv6 in their canonical form. */
function canonicalHost(host: string): string | undefined {
  const ascii = domainToASCII(host);
  if (ascii === "") return undefined;
  return ascii.endsWith(".") ? ascii.slice(0, -1) : ascii;
}

function parseUrlPattern(raw: string): ParseResult {
  if (raw === "") return fail("the pattern is empty");
  if (/\s/.test(raw)) return fail("a pattern cannot contain whitespace");
  const pattern = raw.toLowerCase();
  const separator = pattern.indexOf("://");
  const schemeGlob = separator === -1 ? "https" : pattern.slice(0, separator);
  let rest = separator === -1 ? pattern : pattern.slice(separator + 3);
  if (!/^[a-z*?][a-z0-9+.\-*?]*$/.test(schemeGlob)) return fail(`"${schemeGlob}" is not a valid scheme`);
  if (rest.endsWith("/")) rest = rest.slice(0, -1);
  if (/[/?#\\]/.test(rest)) return fail("a pattern names a host, not a path, query or fragment");
  if (rest.includes("@")) return fail("a pattern cannot contain userinfo (@)");

  const split = splitHostPort(rest);
  if (!split.ok) return split;
  const host = parseHostRule(split.host);
  if (!host.ok) return host;
  return { ok: true, pattern: { scheme: globToRegExp(schemeGlob), host: host.rule, port: split.port } };
}

type HostPort = { ok: true; host: string; port: number | undefined } | { ok: false; reason: string };

function splitHostPort(rest: string): HostPort {
  let host = rest;
  let portText: string | undefined;
  if (rest.startsWith("[")) {
    const close = rest.indexOf("]");
    if (close === -1) return fail("an IPv6 address is missing its closing ]");
    host = rest.slice(0, close + 1);
    const after = rest.slice(close + 1);
    if (after !== "") {
      if (!after.startsWith(":")) return fail("unexpected text after the IPv6 address");
      portText = after.slice(1);
    }
  } else {
    const parts = rest.split(":");
    if (parts.length > 2) return fail("an IPv6 address must be written in brackets, as in [::1]");
    host = parts[0]!;
    portText = parts[1];
  }
  if (host === "") return fail("the pattern has no host");
  if (portText === undefined) return { ok: true, host, port: undefined };
  const port = /^\d{1,5}$/.test(portText) ? Number(portText) : Number.NaN;
  if (!(port >= 1 && port <= 65535)) return fail(`"${portText}" is not a valid port`);
  return { ok: true, host, port };
}

type HostRuleResult = { ok: true; rule: HostRule } | { ok: false; reason: string };

function parseHostRule(host: string): HostRuleResult {
  if (host === "*") return { ok: true, rule: { kind: "any" } };
  if (host.includes("*")) {
    if (count(host, "*.") > 1 || count(host, ".*") > 1) return fail("a pattern may hold only one wildcard");
    if (host.endsWith(".*")) return fail("a wildcard cannot stand for the top-level domain");
    if (host.replaceAll("*.", "").includes("*") || !host.startsWith("*.")) {
      return fail("'*' may only stand for subdomains, as in *.example.com");
    }
    const parent = canonicalHost(host.slice(2));
    if (!parent) return fail(`"${host.slice(2)}" is not a valid host name`);
    if (isIpLiteral(parent)) return fail("a wildcard needs a domain name, not an IP address");
    return { ok: true, rule: { kind: "subdomains", parent } };
  }
  const exact = canonicalHost(host);
  if (!exact) return fail(`"${host}" is not a valid host name`);
  return { ok: true, rule: { kind: "exact", host: exact } };
}

function isIpLiteral(host: string): boolean {
  return host.startsWith("[") || /^\d+\.\d+\.\d+\.\d+$/.test(host);
}

/** fnmatch for schemes: `*` any run, `?` one character. */
function globToRegExp(glob: string): RegExp {
  const body = glob.replace(/[.+\-*?]/g, (c) => (c === "*" ? ".*" : c === "?" ? "." : `\\${c}`));
  return new RegExp(`^${body}$`);
}

function count(text: string, part: string): number {
  return text.split(part).length - 1;
}

function fail(reason: string): { ok: false; reason: string } {
  return { ok: false, reason };
}
