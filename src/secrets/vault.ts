// The secrets of a run: which names the model may use where, substitution into tool arguments
// and shell commands right before a tool runs, and the redactor that turns values back into
// `<secret>name</secret>` in everything that leaves.
import { Redactor } from "../core/redactor.js";
import { describeScope, type SecretScope, scopeAllows } from "./scope.js";
import { parseSecrets, readSecretsFile, type SecretEntry, type SecretsFileOptions } from "./secrets-file.js";
import {
  type CommandSubstitution,
  type SecretLookup,
  substituteCommandSecrets,
} from "./shell-substitution.js";

export interface SecretVaultOptions {
  /** The clock for TOTP codes, in ms since the epoch (default Date.now). */
  now?: () => number;
  /** Values shorter than this are refused (default 8). */
  minLength?: number;
}

/** What the prompt may say about a secret: never its value. */
export interface SecretNameInfo {
  name: string;
  /** The scope keys as written in secrets.json. */
  scopes: string[];
  /** In words, as in "the current 2FA code; usable on URLs matching github.com". */
  description: string;
}

/** Where a tool is about to run: the page or request URL, the workspace of a command. */
export interface SecretUseScope {
  url?: string;
  workspaceRoot?: string;
}

export interface SubstitutedArgs {
  /** A deep copy of the arguments with secrets filled in; the input is never changed. */
  args: unknown;
  used: string[];
  /** Placeholders naming no known secret, left as written. */
  missing: string[];
  /** Known secrets not allowed here, left as written. */
  outOfScope: string[];
}

const PLACEHOLDER = /<secret>(.*?)<\/secret>/g;

export class SecretVault {
  readonly redactor: Redactor;
  /** Secrets left out at load, said in words that never hold a value. */
  readonly warnings: readonly string[];
  readonly #entries: readonly SecretEntry[];
  readonly #now: () => number;

  private constructor(entries: SecretEntry[], warnings: string[], options: SecretVaultOptions) {
    this.#entries = entries;
    this.warnings = warnings;
    this.#now = options.now ?? Date.now;
    this.redactor = new Redactor({ minLength: options.minLength ?? 8 });
    for (const entry of entries) {
      this.redactor.add(entry.name, entry.value);
      for (const seed of entry.totp?.seeds ?? []) {
        if (seed.length >= this.redactor.minLength) this.redactor.add(entry.name, seed);
      }
    }
  }

  static empty(options: SecretVaultOptions = {}): SecretVault {
    return new SecretVault([], [], options);
  }

  /** Loads $RESON_HOME/secrets.json (the path is given); a missing file gives an empty vault. */
  static async load(
    path: string,
    options: SecretVaultOptions & SecretsFileOptions = {},
  ): Promise<SecretVault> {
    const { entries, warnings } = await readSecretsFile(path, options);
    return new SecretVault(entries, warnings, options);
  }

  /** From a parsed secrets document, for embedders that keep secrets elsewhere than the file. */
  static fromDocument(
    document: unknown,
    options: SecretVaultOptions & SecretsFileOptions & { source?: string } = {},
  ): SecretVault {
    const { entries, warnings } = parseSecrets(document, options.source ?? "secrets", options);
    return new SecretVault(entries, warnings, options);
  }

  names(): SecretNameInfo[] {
    const byName = new Map<string, { scopes: SecretScope[]; totp: boolean }>();
    for (const entry of this.#entries) {
      const info = byName.get(entry.name) ?? { scopes: [], totp: false };
      info.scopes.push(entry.scope);
      info.totp ||= entry.totp !== undefined;
      byName.set(entry.name, info);
    }
    return [...byName].map(([name, { scopes, totp }]) => ({
      name,
      scopes: scopes.map(scopeKey),
      description: `${totp ? "the current 2FA code; " : ""}usable on ${scopes.map(describeScope).join(", ")}`,
    }));
  }

  /** The names a URL tool may use on this page (none on a new tab or an invalid URL). */
  forUrl(url: string): string[] {
    return this.#namesWhere({ url });
  }

  /** The names a command may use in this workspace. */
  forWorkspace(root: string): string[] {
    return this.#namesWhere({ workspaceRoot: root });
  }

  /**
   * The names of secrets `args` would have filled in anywhere: `<secret>name</secret>` tags and
   * strings that are exactly a secret's name, whatever their scope.
   */
  named(args: unknown): string[] {
    const known = new Set(this.#entries.map((entry) => entry.name));
    const found = new Set<string>();
    mapStrings(args, (text) => {
      if (known.has(text)) found.add(text);
      for (const match of text.matchAll(PLACEHOLDER)) if (known.has(match[1]!)) found.add(match[1]!);
      return text;
    });
    return [...found];
  }

  /**
   * Fills `<secret>name</secret>` in every string of `args`; a string that is exactly the name
   * of a secret allowed here is replaced too (models forget the tags, as Browser-Use found).
   */
  substituteArgs(args: unknown, scope: SecretUseScope): SubstitutedArgs {
    const lookup = this.#lookupAt(scope);
    const used = new Set<string>();
    const missing = new Set<string>();
    const outOfScope = new Set<string>();
    const fill = (text: string): string => {
      const whole = lookup(text);
      if (whole.status === "ok") {
        used.add(text);
        return whole.value;
      }
      return text.replace(PLACEHOLDER, (tag, name: string) => {
        const found = lookup(name);
        if (found.status === "ok") {
          used.add(name);
          return found.value;
        }
        (found.status === "missing" ? missing : outOfScope).add(name);
        return tag;
      });
    };
    return {
      args: mapStrings(args, fill),
      used: [...used],
      missing: [...missing],
      outOfScope: [...outOfScope],
    };
  }

  /**
   * Turns placeholders in a shell command into references to variables of `env`: the values
   * never enter the command text. Run it with `env` added to the child's environment, and
   * refuse it when `missing`, `outOfScope` or `unexpandable` is not empty.
   */
  substituteCommand(command: string, workspaceRoot: string): CommandSubstitution {
    return substituteCommandSecrets(command, this.#lookupAt({ workspaceRoot }));
  }

  #namesWhere(where: SecretUseScope): string[] {
    const names = new Set<string>();
    for (const entry of this.#entries) if (scopeAllows(entry.scope, where)) names.add(entry.name);
    return [...names];
  }

  /** Resolves names at one instant, so a TOTP code is the same throughout one call. */
  #lookupAt(where: SecretUseScope): SecretLookup {
    const now = this.#now();
    return (name) => {
      const entries = this.#entries.filter((entry) => entry.name === name);
      if (entries.length === 0) return { status: "missing" };
      // The first entry in file order whose scope allows it wins.
      const entry = entries.find((candidate) => scopeAllows(candidate.scope, where));
      if (!entry) return { status: "outOfScope" };
      if (!entry.totp) return { status: "ok", value: entry.value };
      const code = entry.totp.code(now);
      this.redactor.add(name, code, { allowShort: true });
      return { status: "ok", value: code };
    };
  }
}

function scopeKey(scope: SecretScope): string {
  return scope.kind === "url" ? scope.pattern : `workspace:${scope.pattern}`;
}

function mapStrings(value: unknown, fill: (text: string) => string): unknown {
  if (typeof value === "string") return fill(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, fill));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mapStrings(item, fill)]));
  }
  return value;
}
