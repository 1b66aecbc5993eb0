// The editor's buffers as the workspace's text channel, where the client offers
// fs/read_text_file and fs/write_text_file: the file tools read unsaved changes and their edits
// land in the editor, in its undo history. The workspace has checked every path (inside it, not
// reson's own folder, not protected) before anything reaches the editor.
import { type AgentContext, type FileSystemCapabilities, methods } from "@agentclientprotocol/sdk";
import { ResonError } from "../core/errors.js";
import type { TextFileChannel } from "../workspace/index.js";

export function editorFiles(
  client: AgentContext,
  sessionId: string,
  offered: FileSystemCapabilities | undefined,
  log: (line: string) => void,
): TextFileChannel | undefined {
  const channel: TextFileChannel = {};
  if (offered?.readTextFile) {
    channel.read = async (path, signal) => {
      try {
        const read = await client.request(
          methods.client.fs.readTextFile,
          { sessionId, path },
          signal ? { cancellationSignal: signal, stopWaitingOnCancel: true } : {},
        );
        return read.content;
      } catch (error) {
        // The file is read from disk instead: it passed the same checks either way.
        log(`the editor could not read ${path} (${messageOf(error)}); read from disk`);
        return undefined;
      }
    };
  }
  if (offered?.writeTextFile) {
    channel.write = async (path, content, signal) => {
      try {
        await client.request(
          methods.client.fs.writeTextFile,
          { sessionId, path, content },
          signal ? { cancellationSignal: signal, stopWaitingOnCancel: true } : {},
        );
      } catch (error) {
        throw new ResonError("tool_failed", `The editor did not write ${path}: ${messageOf(error)}.`, {
          hint: "The file was not changed. Check that it is not read-only in the editor, then try again.",
        });
      }
    };
  }
  return channel.read || channel.write ? channel : undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
