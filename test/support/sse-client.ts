// A small server-sent-events reader for tests: reads a stream until the server ends it (or a
// frame count or time limit is reached) and returns its frames as the wire had them.
export interface SseClientFrame {
  id?: string;
  event?: string;
  data: string;
}

export async function readSse(
  url: string,
  headers: Record<string, string>,
  options: {
    maxFrames?: number;
    timeoutMs?: number;
    signal?: AbortSignal;
    /** Told of each frame as it arrives (the stream is still open). */
    onFrame?: (frame: SseClientFrame) => void;
  } = {},
): Promise<SseClientFrame[]> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs ?? 20_000);
  options.signal?.addEventListener("abort", () => controller.abort(), { once: true });
  const frames: SseClientFrame[] = [];
  try {
    const response = await fetch(url, {
      headers: { accept: "text/event-stream", ...headers },
      signal: controller.signal,
    });
    if (!response.ok || !response.body)
      throw new Error(`SSE ${url}: ${response.status} ${await response.text()}`);
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of response.body) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      for (;;) {
        const end = buffer.indexOf("\n\n");
        if (end < 0) break;
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const frame: SseClientFrame = { data: "" };
        let hasData = false;
        for (const line of block.split("\n")) {
          if (line.startsWith(":")) continue;
          const colon = line.indexOf(":");
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
          if (field === "id") frame.id = value;
          else if (field === "event") frame.event = value;
          else if (field === "data") {
            frame.data += (hasData ? "\n" : "") + value;
            hasData = true;
          }
        }
        if (hasData) {
          frames.push(frame);
          options.onFrame?.(frame);
        }
        if (options.maxFrames !== undefined && frames.length >= options.maxFrames) {
          controller.abort();
          return frames;
        }
      }
    }
    return frames;
  } catch (error) {
    if (controller.signal.aborted && options.maxFrames !== undefined) return frames;
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
