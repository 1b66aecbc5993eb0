// import() of an ES module package from node_modules (pi-ai is one and nothing else). The
// command's bundle runs as a script, which has no module loader of its own
// (src/cli/code-cache.ts); its build (scripts/bundle-cli.mjs) puts the launcher's import()
// in place of this one.
export function importEsm<T>(specifier: string): Promise<T> {
  return import(specifier) as Promise<T>;
}
