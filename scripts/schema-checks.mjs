// Checks generated from TypeBox schemas when the CLI is bundled: an ES module whose exports
// are plain functions, so a start-up that checks a value runs no schema engine. TypeBox
// builds the same code for Compile(); this writes it out instead of evaluating it.
//   schemaCheckModule({ isConfig: ConfigSchema }) → "export const isConfig = …"
import { Build } from "typebox/schema";

/** The source of one check: its functions in a scope of their own, made on first use. */
function checkSource(name, schema) {
  const build = Build(schema);
  // A schema with unevaluatedProperties/Items needs TypeBox's CheckContext at run time.
  if (build.UseUnevaluated()) throw new Error(`${name}: unevaluated keywords are not supported here`);
  const { identifier, variables } = build.External();
  const externals = variables.map((variable, index) => {
    if (!(variable instanceof RegExp)) {
      throw new Error(`${name}: external ${index} is a ${typeof variable}, not a regular expression`);
    }
    return `new RegExp(${JSON.stringify(variable.source)}, ${JSON.stringify(variable.flags)})`;
  });
  return [
    `let ${name}Check;`,
    `export function ${name}(value) {`,
    `  ${name}Check ??= (() => {`,
    `    const ${identifier} = [${externals.join(", ")}];`,
    ...build.Functions().map((fn) => `    ${fn};`),
    `    return (value) => ${build.Entry()};`,
    "  })();",
    `  return ${name}Check(value);`,
    "}",
  ].join("\n");
}

/** An ES module exporting one check function per entry of `schemas`. */
export function schemaCheckModule(schemas) {
  const checks = Object.entries(schemas).map(([name, schema]) => checkSource(name, schema));
  // Only what the checks use: typebox/system would also initialise TypeBox's locales.
  const uses = (name) => checks.some((check) => check.includes(`${name}.`));
  return [
    ...(uses("Guard") ? ['import { Guard } from "typebox/guard";'] : []),
    ...(uses("Hashing") ? ['import { Hashing } from "typebox/system";'] : []),
    ...checks,
  ].join("\n");
}
