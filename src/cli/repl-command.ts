// `reson` with no subcommand: the interactive terminal's start. It parses the options, settles
// the workspace (checked before any plugin or MCP server starts), asks about a broad folder,
// makes the first agent, shows where a continued session stands, and runs the prompt loop
// (repl.ts) until the user leaves.
import { openDefaultStore, workspaceStanding } from "../agent/index.js";
import { resonHome, trustedFoldersPath, trustFolder } from "../config/index.js";
import { toResonError } from "../core/errors.js";
import { describeHeld } from "../permissions/index.js";
import { loadGate, loadPolicy, sandboxSetup } from "../runner/index.js";
import { projectKey, type Store } from "../store/index.js";
import { probeSandbox } from "../workspace/index.js";
import { EXIT_OK, EXIT_USAGE, exitCodeForError } from "./exit-codes.js";
import { MAIN_HELP } from "./help.js";
import { approveHeld } from "./permissions-command.js";
import { Repl } from "./repl.js";
import { askPermission } from "./repl-permission.js";
import { parseReplArgs, type ReplArgs } from "./run-args.js";
import { reportError } from "./run-command.js";
import { existingWorkspaceFolder, settleWorkspace } from "./workspace-choice.js";

/**
 * The workspace question, as Codex asks whether to trust a folder: only for a broad folder
 * (home, above it, holding $RESON_HOME) not trusted yet. A yes is remembered for the folder;
 * a no (or the end of input) ends the session with nothing run. `/`, system folders and
 * $RESON_HOME itself are refused without a question.
 */
async function confirmWorkspace(repl: Repl, root: string): Promise<boolean> {
  const standing = await workspaceStanding(root);
  if (standing.kind === "refused") throw standing.error;
  if (standing.kind === "ok" || repl.args.trustWorkspace) return true;
  repl.write(
    `reson is about to work in ${root}: ${standing.reason}.\n` +
      "Its tools can read every file in it and, as the permission mode allows, change them.\n",
  );
  const answer = await repl.reader.read("Trust this folder? [y] yes, and remember it  [n] no, quit: ");
  if (answer !== null && /^\s*y(es)?\s*$/i.test(answer)) {
    await trustFolder(resonHome(), root);
    repl.write(
      `Trusted ${root}; remembered in ${trustedFoldersPath(resonHome())} (delete its entry there to revoke).\n`,
    );
    return true;
  }
  repl.write(
    "Not trusted; nothing ran. Start reson in a project folder (cd into it, or --workspace <folder>).\n",
  );
  return false;
}

/**
 * Asks once about what the workspace's own settings files grant unapproved (a cloned
 * repository ships them); a yes is remembered, and the policy is read again with it.
 */
async function confirmProjectGrants(repl: Repl, root: string): Promise<void> {
  const held = repl.gate.currentPolicy.held ?? [];
  if (held.length === 0) return;
  repl.write(
    `This workspace's settings files grant, without asking you first:\n${describeHeld(held)}\n` +
      "A repository you clone can ship these files; until you approve them, runs here ask instead.\n",
  );
  const answer = await repl.reader.read("Approve them? [y] yes, and remember them  [n] no, ask instead: ");
  if (answer === null || !/^\s*y(es)?\s*$/i.test(answer)) return;
  await approveHeld(resonHome(), root, held);
  repl.gate.adopt(await loadPolicy(repl.args, root));
  repl.write("Approved; a change to these files that grants more is asked about again.\n");
}

export async function replCommand(argv: string[]): Promise<number> {
  let args: ReplArgs;
  try {
    args = parseReplArgs(argv);
  } catch (error) {
    reportError(toResonError(error, "usage_error"));
    return EXIT_USAGE;
  }
  if (args.help) {
    process.stdout.write(MAIN_HELP);
    return EXIT_OK;
  }
  let store: Store | undefined;
  let repl: Repl | undefined;
  try {
    store = await openDefaultStore(resonHome());
    await settleWorkspace(store, args, "default");
    const workspaceRoot = existingWorkspaceFolder(args.workspace);
    const ask = (prompt: Parameters<typeof askPermission>[0]) => {
      const current = repl;
      if (!current) return Promise.resolve({ kind: "deny" as const });
      current.spinner.stop();
      const columns = process.stdout.isTTY ? process.stdout.columns : undefined;
      return askPermission(prompt, {
        write: (text) => current.write(text),
        read: (question) => current.reader.read(question),
        readKey: (question) => current.reader.readKey(question),
        color: current.color,
        ...(columns ? { columns } : {}),
      });
    };
    const sandbox = await sandboxSetup(args.sandbox, true);
    const gate = await loadGate(args, workspaceRoot, { promptUser: ask, sandbox: sandbox.state });
    repl = new Repl(args, store, gate, workspaceRoot);
    repl.sandbox = sandbox.agent;
    if (!(await confirmWorkspace(repl, workspaceRoot))) return EXIT_USAGE;
    await confirmProjectGrants(repl, workspaceRoot);
    if (args.continue) {
      const latest = await store.sessions.latest(projectKey(workspaceRoot));
      if (latest) repl.session = latest.id;
    }
    const continuing = repl.session !== "new";
    await repl.createAgent(args.model);
    repl.write(
      `${repl.dim(`reson · ${repl.model} · ${workspaceRoot} · permissions ${gate.currentMode}`)}\n` +
        `${repl.dim(sandbox.agent.sandboxSummary ?? (await probeSandbox()).summary)}\n` +
        `${repl.dim(continuing ? `continuing session ${repl.session}` : "new session")} · /help for commands, /exit to leave\n`,
    );
    if (args.continue && !continuing)
      repl.write("No earlier session in this workspace; starting a new one.\n");
    if (continuing) await repl.replay(repl.session);
    await repl.loop();
    if (repl.session !== "new") {
      repl.write(`Session ${repl.session} saved; reopen it with \`reson --continue\`.\n`);
    }
    return EXIT_OK;
  } catch (error) {
    const failure = toResonError(error);
    reportError(failure);
    return exitCodeForError(failure.code);
  } finally {
    repl?.reader.close();
    await (await repl?.extensions?.catch(() => undefined))?.close();
    await store?.close({ processExiting: true }).catch(() => {});
  }
}
