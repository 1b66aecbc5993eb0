// The terminal's /rewind: a numbered list of this session's recent steps that changed files
// (and each run as a whole), the rewind to before the one picked shown as `reson rewind`
// shows it, then one question: files and conversation, files only, or nothing. `/rewind undo`
// puts back what the latest rewind changed. The choices, the description and the answers are
// the agent's (the editor's /rewind offers the same); the keys and question are the terminal's.
import {
  answeredRewind,
  applyRewind,
  describeRewind,
  type PreparedRewind,
  prepareRewind,
  type RewindAnswer,
  rewindChangesNothing,
  rewindChoices,
  rewindOptions,
} from "../agent/index.js";
import { toResonError } from "../core/errors.js";
import type { Store } from "../store/index.js";
import { printable } from "./file-diff.js";
import { reportError } from "./run-command.js";

export interface TerminalIo {
  write(text: string): void;
  read(prompt: string): Promise<string | null>;
}

/**
 * The one question, in keys: [y] the first answer offered (files and conversation, or the one
 * rewind), [f] files only where the conversation would go back too, anything else nothing.
 */
function question(prepared: PreparedRewind): { text: string; answer: (key: string) => RewindAnswer } {
  const offered = rewindOptions(prepared);
  const overwrite = prepared.plan.conflicts.length > 0 ? ", overwriting the files marked !" : "";
  const filesToo = offered.length === 3;
  return {
    text: filesToo
      ? `Rewind files and conversation [y], files only [f], or nothing [N]${overwrite}? `
      : `Rewind${overwrite}? [y/N] `,
    answer: (key) => {
      if (key === "y") return offered[0]!.answer;
      return key === "f" && filesToo ? "files" : "cancel";
    },
  };
}

/** `/rewind [undo]` in the terminal. */
export async function terminalRewind(
  store: Store,
  io: TerminalIo,
  options: { sessionId: string | undefined; workspace: string; undo: boolean },
): Promise<void> {
  try {
    let prepared: PreparedRewind;
    if (options.undo) {
      prepared = await prepareRewind(store, { undo: true, workspace: options.workspace });
    } else {
      if (!options.sessionId) {
        io.write(
          "No task in this session yet: nothing of it to rewind (`reson rewind <id>` for another run).\n",
        );
        return;
      }
      const choices = await rewindChoices(store, options.sessionId, options.workspace, printable);
      if (choices.length === 0) {
        io.write("Nothing in this session changed files.\n");
        return;
      }
      io.write("Rewind the files to before (newest first):\n");
      io.write(choices.map((choice, i) => `  ${i + 1}) ${choice.label}\n`).join(""));
      const picked = Number((await io.read("which? (a number; empty to cancel) "))?.trim());
      const choice = Number.isInteger(picked) ? choices[picked - 1] : undefined;
      if (!choice) {
        io.write("Nothing was changed.\n");
        return;
      }
      prepared = await prepareRewind(store, {
        id: choice.runId,
        ...(choice.toStep === undefined ? {} : { toStep: choice.toStep }),
      });
    }
    io.write(`${describeRewind(prepared, printable).join("\n")}\n`);
    if (rewindChangesNothing(prepared)) {
      io.write("Nothing to do.\n");
      return;
    }
    const asked = question(prepared);
    const answer = asked.answer(((await io.read(asked.text)) ?? "").trim().toLowerCase());
    const chosen = answeredRewind(prepared, answer);
    if (!chosen) {
      io.write("Nothing was changed.\n");
      return;
    }
    const result = await applyRewind(store, chosen, { force: prepared.plan.conflicts.length > 0 });
    io.write(
      `Done (${result.operations} change${result.operations === 1 ? "" : "s"} to files and folders). /rewind undo puts it back.\n`,
    );
  } catch (error) {
    reportError(toResonError(error));
  }
}
