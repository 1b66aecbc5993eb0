import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isValidUrlPattern, matchUrlPattern } from "../../src/core/url-pattern.js";

// [url, pattern, expected]
const BROWSER_USE_VECTORS: [string, string, boolean][] = [
  ["https://example.com", "example.com", true],
  ["http://example.com", "example.com", false],
  ["https://example.com", "*.example.com", true],
  ["https://sub.sub.example.com", "*.example.com", true],
  ["ftp://example.com", "http*://example.com", false],
  ["chrome-extension://abc", "chrome-extension://*", true],
  ["https://evil.com", "*google.com", false],
  ["https://google.com.evil.com", "*.*.com", false],
];

const MORE_VECTORS: [string, string, boolean][] = [
  // scheme glob and the https default
  ["http://example.com", "http*://example.com", true],
  ["https://example.com", "http*://example.com", true],
  ["http://example.com", "http://example.com", true],
  ["https://example.com/path?q=1#f", "example.com", true],
  ["https://www.example.com", "example.com", false],
  ["https://anything.test", "*", true],
  ["http://anything.test", "*", false],
  ["http://anything.test", "http://*", true],
  ["https://EXAMPLE.com", "Example.COM", true],
  ["https://example.com", "https://example.com/", true],
  // wildcards Browser-Use refuses
  ["https://example.com", "example.*", false],
  ["https://gooogle.com", "g*e.com", false],
  ["https://sub.example.com", "sub.*.com", false],
  ["https://notexample.com", "*.example.com", false],
  ["https://example.com.evil.com", "*.example.com", false],
  ["https://example.com.evil.com", "example.com", false],
  // IDN → punycode, both ways
  ["https://bücher.de", "bücher.de", true],
  ["https://xn--bcher-kva.de", "bücher.de", true],
  ["https://bücher.de", "xn--bcher-kva.de", true],
  ["https://shop.bücher.de", "*.BÜCHER.de", true],
  // trailing dots
  ["https://example.com.", "example.com", true],
  ["https://example.com", "example.com.", true],
  ["https://a.example.com.", "*.example.com", true],
  // IPv4 and IPv6 literals
  ["https://127.0.0.1", "127.0.0.1", true],
  ["https://127.0.0.1", "127.0.0.2", false],
  ["http://[::1]:8080/", "http://[::1]", true],
  ["http://[0:0:0:0:0:0:0:1]/", "http://[::1]", true],
  ["http://[::1]/", "http://[0::1]:80", true],
  ["http://[::2]/", "http://[::1]", false],
  // userinfo is never trusted
  ["https://example.com@evil.com", "example.com", false],
  ["https://example.com@evil.com", "evil.com", false],
  ["https://user:pass@example.com", "example.com", false],
  ["https://example.com@evil.com", "*", false],
  // ports: a pattern with a port matches that port only, one without matches any
  ["https://example.com:8443", "example.com", true],
  ["https://example.com:8443", "example.com:8443", true],
  ["https://example.com", "example.com:8443", false],
  ["https://example.com", "example.com:443", true],
  ["https://example.com:443", "example.com:443", true],
  ["http://example.com", "http*://example.com:443", false],
  ["http://localhost:3000/app", "http://localhost:3000", true],
  ["http://localhost:3001/app", "http://localhost:3000", false],
  ["https://sub.example.com:9000", "*.example.com:9000", true],
  // new-tab pages and host-less URLs
  ["about:blank", "*", false],
  ["about:blank", "about://*", false],
  ["chrome://newtab/", "chrome://*", false],
  ["chrome://new-tab-page", "chrome://*", false],
  ["chrome://settings", "chrome://*", true],
  ["file:///etc/passwd", "file://*", false],
  ["data:text/html,hi", "data://*", false],
  ["", "*", false],
  ["not a url", "*", false],
];

describe("matchUrlPattern", () => {
  it.each(BROWSER_USE_VECTORS)("Browser-Use vector: %s against %s → %s", (url, pattern, expected) => {
    expect(matchUrlPattern(pattern, url)).toBe(expected);
  });

  it.each(MORE_VECTORS)("%s against %s → %s", (url, pattern, expected) => {
    expect(matchUrlPattern(pattern, url)).toBe(expected);
  });

  const label = fc.stringMatching(/^[a-z][a-z0-9]{0,7}$/);
  const domain = fc.array(label, { minLength: 2, maxLength: 4 }).map((labels) => labels.join("."));

  it("a host matches a domain pattern only if it is that domain or below it", () => {
    fc.assert(
      fc.property(domain, domain, fc.boolean(), (host, patternDomain, wildcard) => {
        const pattern = wildcard ? `*.${patternDomain}` : patternDomain;
        const matched = matchUrlPattern(pattern, `https://${host}/`);
        const below = host === patternDomain || (wildcard && host.endsWith(`.${patternDomain}`));
        expect(matched).toBe(below);
      }),
    );
  });

  it("a pattern never matches a host that merely starts with it or hides it in userinfo", () => {
    fc.assert(
      fc.property(domain, domain, fc.boolean(), (trusted, evil, wildcard) => {
        fc.pre(evil !== trusted && !evil.endsWith(`.${trusted}`));
        const pattern = wildcard ? `*.${trusted}` : trusted;
        expect(matchUrlPattern(pattern, `https://${trusted}.${evil}/`)).toBe(false);
        expect(matchUrlPattern(pattern, `https://${trusted}@${evil}/`)).toBe(false);
        expect(matchUrlPattern(pattern, `https://${trusted}:x@${evil}/`)).toBe(false);
      }),
    );
  });

  it("never throws on arbitrary input", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (pattern, url) => {
        expect(typeof matchUrlPattern(pattern, url)).toBe("boolean");
      }),
    );
  });
});

describe("isValidUrlPattern", () => {
  it.each([
    "example.com",
    "*.example.com",
    "http*://example.com",
    "chrome-extension://*",
    "*",
    "http://localhost:3000",
    "http://[::1]:8080",
    "bücher.de",
    "example.com.",
  ])("accepts %s", (pattern) => {
    expect(isValidUrlPattern(pattern)).toEqual({ ok: true });
  });

  it.each([
    ["", "empty"],
    ["*google.com", "subdomains"],
    ["*.*.com", "one wildcard"],
    ["example.*", "top-level"],
    ["g*e.com", "subdomains"],
    ["sub.*.com", "subdomains"],
    ["example.com/path", "not a path"],
    ["user@example.com", "userinfo"],
    ["example.com:99999", "port"],
    ["example.com:", "port"],
    ["::1", "brackets"],
    ["[::1", "closing"],
    ["*.127.0.0.1", "IP address"],
    ["exa mple.com", "whitespace"],
    ["ht_tp://example.com", "scheme"],
    ["https://", "no host"],
  ])("refuses %s, saying why", (pattern, reason) => {
    const check = isValidUrlPattern(pattern);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.reason).toContain(reason);
  });
});
