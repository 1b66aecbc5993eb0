// The environment commands run with: an allow-list of harmless variables taken from the
// parent, never anything that looks like a credential, whatever the allow-list says. Keys
// reach a command only through the secrets mechanism (a later issue), never by inheritance.

const ALLOWED_NAMES = new Set(["PATH", "HOME", "LANG", "TERM", "TZ", "USER", "SHELL", "TMPDIR"]);
const ALLOWED_PREFIXES = ["LC_"];
const SECRET_NAME = /API_?KEY|TOKEN|SECRET|PASSW(OR)?D|CREDENTIAL|PRIVATE_?KEY|^RESON_/i;

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** The allow-listed variables of `source`, plus `extraNames`, minus anything secret-looking. */
export function scrubEnvironment(
  source: Readonly<Record<string, string | undefined>>,
  extraNames: readonly string[] = [],
): Record<string, string> {
  const extra = new Set(extraNames);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined || isSecretName(name)) continue;
    const allowed =
      ALLOWED_NAMES.has(name) || extra.has(name) || ALLOWED_PREFIXES.some((p) => name.startsWith(p));
    if (allowed) env[name] = value;
  }
  return env;
}
