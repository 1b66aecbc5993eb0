// Builds the web view of `reson serve` (web/) into dist/web/: the page, its stylesheet and one
// ES module bundled by esbuild from web/src/main.ts. Nothing is fetched from a CDN at run time.
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { build } from "esbuild";

const root = resolve(import.meta.dirname, "..");
const outdir = resolve(root, "dist/web");
rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });
await build({
  absWorkingDir: root,
  entryPoints: ["web/src/main.ts"],
  outfile: resolve(outdir, "app.js"),
  bundle: true,
  format: "esm",
  platform: "browser",
  target: ["es2022"],
  minify: true,
  sourcemap: "linked",
  logLevel: "warning",
});
for (const file of ["index.html", "style.css"]) copyFileSync(resolve(root, "web", file), resolve(outdir, file));
