// What `reson plugin add` was given: a folder (registered where it lies), a tarball or an npm
// spec (both installed with npm). A spec that carries a credential is refused: the spec is kept
// in the registry file and shown by `reson plugin list`, and no secret is ever written down.
import { stat } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import { ResonError } from "../core/errors.js";

export type PluginSpec =
  | { kind: "folder"; path: string }
  | { kind: "tarball"; path: string }
  /** `name` is known for registry specs (name, name@range, @scope/name, alias@npm:…), not for URLs. */
  | { kind: "npm"; spec: string; name?: string };

const TARBALL = /\.(tgz|tar\.gz|tar)$/i;
const PACKAGE_NAME = /^(@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/i;
/** Query parameters that carry credentials in the URLs people paste (presigned tarballs, tokens). */
const SECRET_PARAMS = /[?&](token|access_token|auth|key|sig|signature|password|x-amz-[a-z-]+)=/i;

function looksLikePath(spec: string): boolean {
  return (
    isAbsolute(spec) ||
    spec.startsWith("./") ||
    spec.startsWith("../") ||
    spec === "." ||
    spec === ".." ||
    spec.startsWith("~/") ||
    spec.startsWith("file:")
  );
}

/** Refuses a spec with a user name, password or token in it (a URL's user info or query). */
export function refuseCredentials(spec: string): void {
  const host = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(spec)?.[1] ?? "";
  // `git@github.com` names the SSH account every git host uses, no secret; any other user
  // name or password in a URL is one (`https://<token>@github.com/…`).
  const userInfo = host.includes("@") ? host.slice(0, host.lastIndexOf("@")) : undefined;
  if ((userInfo !== undefined && userInfo !== "git") || SECRET_PARAMS.test(spec))
    throw new ResonError("usage_error", "The plugin spec holds a credential; reson does not write it down.", {
      hint: "Give npm the credential instead: a `//host/:_authToken=` line in ~/.npmrc that reads it from an environment variable, or git's credential helper, then add the spec without it.",
    });
}

/** The package name an npm registry spec installs, when the spec says it. */
function registryName(spec: string): string | undefined {
  const alias = /^((?:@[^/@]+\/)?[^/@]+)@npm:/.exec(spec);
  if (alias?.[1]) return alias[1];
  const at = spec.indexOf("@", spec.startsWith("@") ? 1 : 0);
  const name = at < 0 ? spec : spec.slice(0, at);
  return PACKAGE_NAME.test(name) ? name : undefined;
}

/** Classifies `spec`, relative paths taken from `cwd`; throws usage_error for a path that is not there. */
export async function parsePluginSpec(spec: string, cwd: string): Promise<PluginSpec> {
  const trimmed = spec.trim();
  if (trimmed === "")
    throw new ResonError("usage_error", "reson plugin add takes a folder, a tarball or an npm package.", {
      hint: "For example: reson plugin add ./my-plugin, reson plugin add my-plugin-1.0.0.tgz, reson plugin add @acme/reson-lint@1.2.0",
    });
  refuseCredentials(trimmed);
  const home = process.env.HOME ?? "";
  const pathText = trimmed.startsWith("file:")
    ? trimmed.slice(5)
    : trimmed.startsWith("~/")
      ? `${home}${trimmed.slice(1)}`
      : trimmed;
  const path = resolve(cwd, pathText);
  // Like npm, a bare word is a package name even when a folder of that name lies here.
  const bareName = !trimmed.includes("/") && !looksLikePath(trimmed) && !TARBALL.test(trimmed);
  const info = bareName ? undefined : await stat(path).catch(() => undefined);
  if (info?.isDirectory()) return { kind: "folder", path };
  if (info?.isFile() && TARBALL.test(path)) return { kind: "tarball", path };
  if (looksLikePath(trimmed) || (TARBALL.test(trimmed) && !/^[a-z][a-z0-9+.-]*:/i.test(trimmed)))
    throw new ResonError("usage_error", `There is no plugin folder or tarball at ${path}.`, {
      hint: "Give an existing folder (with a plugin.json), a .tgz made by `npm pack`, or an npm package name.",
    });
  const name = registryName(trimmed);
  return { kind: "npm", spec: trimmed, ...(name ? { name } : {}) };
}
