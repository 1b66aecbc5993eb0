// reson's permission modes as the editor's session modes (session/set_mode, the mode picker):
// the same five modes as --permission-mode and the terminal's /permissions mode, each said as
// what it lets through.
import type { SessionModeState } from "@agentclientprotocol/sdk";
import { ResonError } from "../core/errors.js";
import { PERMISSION_MODES, type PermissionMode, parseMode } from "../permissions/index.js";

const MODES: Record<PermissionMode, { name: string; description: string }> = {
  default: { name: "Ask", description: "Reads are free; file edits and commands ask first." },
  acceptEdits: {
    name: "Accept edits",
    description: "File edits inside the workspace are free; other changes ask (protected paths always ask).",
  },
  plan: { name: "Plan", description: "Read only: no write tools are offered; only read-only commands run." },
  dontAsk: { name: "Don't ask", description: "Whatever no allow rule covers is denied without asking." },
  bypass: {
    name: "Bypass",
    description: "Everything runs except deny rules and the guards (protected paths, critical deletes).",
  },
};

export function modeState(current: PermissionMode): SessionModeState {
  return {
    currentModeId: current,
    availableModes: PERMISSION_MODES.map((id) => ({ id, ...MODES[id] })),
  };
}

export function requireMode(id: string): PermissionMode {
  const mode = parseMode(id);
  if (mode) return mode;
  throw new ResonError("usage_error", `Unknown mode ${JSON.stringify(id)}.`, {
    hint: `Use one of: ${PERMISSION_MODES.join(", ")}.`,
  });
}
