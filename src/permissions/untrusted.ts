// What changes once a run has read untrusted content (a web page, an MCP result, a sub-agent's
// answer that carried one): a call the rules and the mode would let through is held back, that
// is asked (and denied where no one can answer), when it
//   - sends a request to a host no allow rule names (web_fetch, browser navigation, a URL in an
//     external tool's arguments), or calls an external tool (an MCP server not marked trusted,
//     a plugin's tool that acts) that no allow rule names;
//   - fills in a secret, unless an allow rule (not the mode) let this very call through;
//   - changes a file that steers later runs (instruction files, skills, .mcp.json, .reson/),
//     unless an allow rule that names that file let it through;
//   - changes an installed package (node_modules, a virtual environment's programs and
//     packages), which the user's tools run with no diff showing it, unless such a rule did.
// The mode, bypass included, never counts as naming anything: that is the point. Pure.
import { relative, sep } from "node:path";
import { isWithin } from "../core/path-within.js";
import { installedEntry, steeringEntry } from "../workspace/index.js";
import type { Action } from "./actions.js";
import { BROWSER_NAVIGATE_TOOL, BROWSER_TOOLS, FETCH_TOOL } from "./tool-names.js";
import type { Decision, EvaluationContext, Policy } from "./types.js";

/** Why a call the rules would allow is held back after untrusted content; undefined: it is not. */
export function untrustedHold(
  action: Action,
  verdict: Decision,
  policy: Policy,
  context: EvaluationContext,
): string | undefined {
  const byRule = verdict.decidedBy === "rule" && verdict.rule?.list === "allow";
  if (action.tool === FETCH_TOOL || action.tool === BROWSER_NAVIGATE_TOOL) {
    if (!action.host) return "it names no host a rule could allow";
    if (!hostNamed(action.host, policy))
      return `it sends a request to ${action.host}, which no allow rule names`;
  } else if (isActingExternal(action, context)) {
    if (!byRule) return `it calls ${action.tool}, which reaches outside and which no allow rule names`;
    const unnamed = action.argumentHosts?.find((host) => !hostNamed(host, policy));
    if (unnamed) return `its arguments name ${unnamed}, which no allow rule names`;
  }
  if (action.fillsSecrets && !byRule) return "it fills in a secret, and no allow rule names this call";
  const steering = action.kind === "write" && action.path ? steeringEntry(action.path) : undefined;
  if (steering && !(byRule && verdict.rule!.text.includes(steering)))
    return `it changes ${steering}, which steers later runs, and no allow rule names it`;
  const installed = action.kind === "write" && action.path ? installedIn(action.path, context) : undefined;
  if (installed && !(byRule && verdict.rule!.text.includes(installed)))
    return `it changes ${installed}, the packages installed for the project, which your tools load with no diff showing it, and no allow rule names it`;
  return undefined;
}

/** The install folder (as the list names it, e.g. packages/app/node_modules) that `absPath` lies in, if any. */
function installedIn(absPath: string, context: EvaluationContext): string | undefined {
  if (!isWithin(absPath, context.workspaceRoot)) return undefined;
  const inside = relative(context.workspaceRoot, absPath).split(sep).join("/");
  // By name first; an environment of another name only the look below the root knows.
  let entry = installedEntry(inside);
  if (!entry) {
    const below = context.protectedBelow?.(inside);
    if (below?.kind === "installs") entry = below;
  }
  return entry?.whereFolderExists ?? entry?.path;
}

/** Whether an allow rule with a domain names `host` (for web_fetch or the browser alike). */
export function hostNamed(host: string, policy: Policy): boolean {
  return policy.rules.some(
    (rule) =>
      rule.list === "allow" && rule.matcher.kind === "domain" && hostMatches(host, rule.matcher.pattern),
  );
}

/** `example.com`, or with `*.` the host and its subdomains. */
export function hostMatches(host: string | undefined, pattern: string): boolean {
  if (host === undefined) return false;
  if (pattern.startsWith("*.")) {
    const base = pattern.slice(2);
    return host === base || host.endsWith(`.${base}`);
  }
  return host === pattern;
}

/**
 * An external tool whose call may carry data out: every external tool but the browser's (whose
 * requests are checked one by one as they happen), and a plugin's only when it does not say it
 * only reads (an MCP server's own claim to only read is not taken).
 */
function isActingExternal(action: Action, context: EvaluationContext): boolean {
  if (!context.externalTools?.includes(action.tool)) return false;
  if (BROWSER_TOOLS.includes(action.tool)) return false;
  return action.kind !== "read";
}
