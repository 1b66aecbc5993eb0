// "Allow for this session" answered over HTTP lasts the session, not only the run that asked:
// the rules are kept in the session's settings, and every later run of the session (a next
// task, a resume on another worker) starts with them.
import type { PermissionGateOptions } from "../permissions/index.js";
import type { Store } from "../store/index.js";

export async function sessionGrants(
  store: Store,
  sessionId: string,
): Promise<Required<Pick<PermissionGateOptions, "sessionRules" | "onSessionGrant">>> {
  const session = await store.sessions.get(sessionId);
  return {
    sessionRules: session?.settings.allowRules ?? [],
    async onSessionGrant(rules) {
      // Read again: the session is made when its first run starts, and may have changed since.
      const current = await store.sessions.get(sessionId);
      if (!current) return;
      const allowRules = [...new Set([...(current.settings.allowRules ?? []), ...rules])];
      await store.apply([
        {
          op: "updateSession",
          id: sessionId,
          patch: { settings: { ...current.settings, allowRules }, updatedAt: Date.now() },
        },
      ]);
    },
  };
}
