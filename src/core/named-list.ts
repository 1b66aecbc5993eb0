// A list of names for a person to read, cut to its first few: "a, b, c and 4 more". Used
// wherever reson names what changed or what is in the way (files a rewind would overwrite, a
// plugin's or an MCP server's changed files).

/** The first `max` of `names`, comma-separated, and how many more there are. */
export function namedList(names: readonly string[], max: number): string {
  const more = names.length > max ? ` and ${names.length - max} more` : "";
  return `${names.slice(0, max).join(", ")}${more}`;
}
