// Where a secret may be used: the keys of secrets.json. A URL pattern scopes it to URL tools on
// matching pages; `workspace:<path or glob>` scopes it to commands run in matching workspaces.
import { isAbsolute, resolve } from "node:path";
import picomatch from "picomatch";
import { compileGlob } from "../core/glob-compile.js";
import { isValidUrlPattern, matchUrlPattern } from "../core/url-pattern.js";

export type SecretScope =
  | { kind: "url"; pattern: string }
  | { kind: "workspace"; pattern: string; matches: (root: string) => boolean };

const WORKSPACE_PREFIX = "workspace:";

export function parseScope(key: string): { ok: true; scope: SecretScope } | { ok: false; reason: string } {
  if (!key.startsWith(WORKSPACE_PREFIX)) {
    const check = isValidUrlPattern(key);
    return check.ok ? { ok: true, scope: { kind: "url", pattern: key } } : check;
  }
  const pattern = key.slice(WORKSPACE_PREFIX.length);
  if (pattern === "*") return { ok: true, scope: { kind: "workspace", pattern, matches: () => true } };
  if (!isAbsolute(pattern)) {
    return { ok: false, reason: `"${pattern}" must be "*" or an absolute path or glob, as in /home/me/**` };
  }
  if (picomatch.scan(pattern).isGlob) {
    const glob = compileGlob(pattern, { dot: true });
    return { ok: true, scope: { kind: "workspace", pattern, matches: (root) => glob(resolve(root)) } };
  }
  const exact = resolve(pattern);
  return { ok: true, scope: { kind: "workspace", pattern, matches: (root) => resolve(root) === exact } };
}

export function scopeAllows(scope: SecretScope, where: { url?: string; workspaceRoot?: string }): boolean {
  if (scope.kind === "url") return where.url !== undefined && matchUrlPattern(scope.pattern, where.url);
  return where.workspaceRoot !== undefined && scope.matches(where.workspaceRoot);
}

/** For the prompt: where a secret may be used, in words. */
export function describeScope(scope: SecretScope): string {
  if (scope.kind === "url") return `URLs matching ${scope.pattern}`;
  if (scope.pattern === "*") return "commands in any workspace";
  if (picomatch.scan(scope.pattern).isGlob) return `commands in workspaces matching ${scope.pattern}`;
  return `commands in the workspace ${scope.pattern}`;
}
