// Routes for a run's workspace changes: GET /runs/:id/diff (what the run, or one of its steps,
// changed: path by path and as a unified diff) and POST /runs/:id/rewind (put the files, and
// the conversation unless filesOnly, back as they were before the run or a step; or undo the
// latest rewind). The rules are the terminal's: a dry run shows what would change; files
// changed since reson's last snapshot are overwritten only with "force"; a run still going
// is refused. Snapshots live beside the workspace, on the machine whose process ran the run:
// this serve answers for runs whose workspace is on its machine (its own, or its local
// workers'), and says so for the others.
import { Type } from "typebox";
import { applyRewind, conflictError, prepareRewind, runDiff } from "../agent/index.js";
import { type PathChange, patchText } from "../snapshots/index.js";
import type { Store } from "../store/index.js";
import { IdParams } from "./api-schemas.js";
import { defineRoute, type Route } from "./router.js";

/** A diff's text is cut past this (the changes list stays whole). */
const MAX_PATCH_CHARS = 1024 * 1024;

const ChangeKind = Type.Union(
  ["added", "modified", "deleted", "mode", "type"].map((kind) => Type.Literal(kind)),
);
const EntrySide = Type.Object({
  kind: Type.String({ description: "file, dir, link, or excluded (not tracked)" }),
  mode: Type.Integer(),
  size: Type.Integer(),
  reason: Type.Optional(Type.String({ description: "why an excluded entry is not tracked" })),
});
const ChangeSchema = Type.Object({
  path: Type.String(),
  change: ChangeKind,
  before: Type.Optional(EntrySide),
  after: Type.Optional(EntrySide),
});

const DiffQuery = Type.Object({ step: Type.Optional(Type.String({ pattern: "^[1-9][0-9]{0,5}$" })) });
const DiffSchema = Type.Object({
  runId: Type.String(),
  step: Type.Union([Type.Integer(), Type.Null()]),
  workspace: Type.String(),
  changes: Type.Array(ChangeSchema),
  patch: Type.String({ description: "the changes as a unified diff (git's format)" }),
  patchTruncated: Type.Boolean(),
});

const RewindBody = Type.Object(
  {
    toStep: Type.Optional(
      Type.Integer({ minimum: 1, description: "rewind to before this step (default: the whole run)" }),
    ),
    filesOnly: Type.Optional(Type.Boolean({ description: "keep the conversation" })),
    undo: Type.Optional(
      Type.Boolean({ description: "undo the latest rewind of the run's workspace instead" }),
    ),
    dryRun: Type.Optional(Type.Boolean({ description: "only say what would change" })),
    force: Type.Optional(
      Type.Boolean({ description: "overwrite files changed since reson's last snapshot" }),
    ),
  },
  { additionalProperties: false },
);
const RewindSchema = Type.Object({
  rewindId: Type.Union([Type.String(), Type.Null()], { description: "null unless applied" }),
  applied: Type.Boolean(),
  workspace: Type.String(),
  changes: Type.Array(Type.Object({ path: Type.String(), change: ChangeKind })),
  conflicts: Type.Array(Type.String(), { description: "files changed since reson's last snapshot" }),
  untracked: Type.Array(Type.String(), { description: "paths not tracked, left as they are" }),
  conversation: Type.Boolean({ description: "whether the conversation goes back too" }),
  completed: Type.Array(Type.String(), { description: "interrupted rewinds completed first" }),
});

function side(entry: PathChange["before"]) {
  if (!entry) return undefined;
  return {
    kind: entry.kind,
    mode: entry.mode,
    size: entry.size,
    ...(entry.reason ? { reason: entry.reason } : {}),
  };
}

export function rewindRoutes(options: { store: Store; env?: NodeJS.ProcessEnv }): Route[] {
  const { store } = options;
  const env = options.env ?? process.env;
  return [
    defineRoute({
      method: "GET",
      path: "/runs/:id/diff",
      summary: "What a run (or one step, ?step=N) changed in its workspace, from its snapshots",
      tags: ["runs"],
      params: IdParams,
      query: DiffQuery,
      responses: { 200: DiffSchema },
      handler: async ({ params, query }) => {
        const step = query.step === undefined ? undefined : Number(query.step);
        const diff = await runDiff(store, { id: params.id, env, ...(step === undefined ? {} : { step }) });
        const patch = await patchText(diff.store.objects, diff.changes);
        return {
          body: {
            runId: diff.run.id,
            step: step ?? null,
            workspace: diff.workspace,
            changes: diff.changes.map((change) => ({
              path: change.path,
              change: change.change,
              ...(change.before ? { before: side(change.before) } : {}),
              ...(change.after ? { after: side(change.after) } : {}),
            })),
            patch: patch.slice(0, MAX_PATCH_CHARS),
            patchTruncated: patch.length > MAX_PATCH_CHARS,
          },
        };
      },
    }),
    defineRoute({
      method: "POST",
      path: "/runs/:id/rewind",
      summary: "Put the run's workspace back as it was before the run (or a step); dryRun shows it first",
      description:
        "Files changed since reson's last snapshot are listed in `conflicts`; the rewind is refused " +
        "(409 rewind_conflict) unless `force`. A run still going is refused (409). A rewind can be " +
        "undone with `undo`.",
      tags: ["runs"],
      params: IdParams,
      body: RewindBody,
      responses: { 200: RewindSchema },
      handler: async ({ params, body }) => {
        const prepared = await prepareRewind(store, {
          id: params.id,
          env,
          ...(body.toStep === undefined ? {} : { toStep: body.toStep }),
          ...(body.filesOnly ? { filesOnly: true } : {}),
          ...(body.undo ? { undo: true } : {}),
        });
        const { plan } = prepared;
        const nothing = plan.ops.length === 0 && prepared.conversation === undefined;
        let applied = false;
        if (!body.dryRun && !nothing) {
          if (plan.conflicts.length > 0 && !body.force) throw conflictError(plan.conflicts);
          await applyRewind(store, prepared, { force: body.force === true });
          applied = true;
        }
        return {
          body: {
            rewindId: applied ? prepared.id : null,
            applied,
            workspace: prepared.workspace,
            changes: plan.changes.map(({ path, change }) => ({ path, change })),
            conflicts: plan.conflicts,
            untracked: plan.untracked.map(({ path }) => path),
            conversation: prepared.conversation !== undefined,
            completed: prepared.completed,
          },
        };
      },
    }),
  ];
}
