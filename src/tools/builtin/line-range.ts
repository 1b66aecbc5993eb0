// Paging through lines, as read_file and read_artifact do: the offset and limit arguments,
// the refusal of an offset past the end, and the footer that says how to read on.
import { Type } from "typebox";
import { ResonError } from "../../core/errors.js";

export const DEFAULT_READ_LIMIT = 2000;

export const offsetParameter = Type.Optional(
  Type.Integer({ minimum: 1, description: "First line to return, 1-based; default 1." }),
);

export const limitParameter = Type.Optional(
  Type.Integer({
    minimum: 1,
    description: `How many lines to return at most; default ${DEFAULT_READ_LIMIT}.`,
  }),
);

/** The last line of the page from `offset`; an offset past the end of `what` is refused. */
export function pageEnd(offset: number, limit: number, total: number, what: string): number {
  if (offset > total) {
    throw new ResonError(
      "tool_invalid_arguments",
      `offset ${offset} is past the end of ${what}, which has ${total} line${total === 1 ? "" : "s"}.`,
      { hint: `Use an offset from 1 to ${total}.`, details: { field: "offset" } },
    );
  }
  return Math.min(total, offset + limit - 1);
}

/** "[Lines 1-200 of 500. <how to read on from 201> to read more.]", or "…; end of <what>.]". */
export function pageFooter(
  offset: number,
  last: number,
  total: number,
  readOn: (next: number) => string,
  what: string,
): string {
  if (last < total) return `[Lines ${offset}-${last} of ${total}. ${readOn(last + 1)} to read more.]`;
  return `[Lines ${offset}-${last} of ${total}; end of ${what}.]`;
}
