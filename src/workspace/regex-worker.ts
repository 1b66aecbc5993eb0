// The built-in search engine tests its regular expression in a worker thread, under a time limit.
// JavaScript's engine backtracks: a pattern such as `(a+)+$` on a long line of "a"s runs for
// minutes, and on the loop's thread nothing (no abort, no timeout, no other run) could stop it.
// The pattern comes from the model and the files may come from whoever wrote the repository, so
// a fooled model must not be able to freeze reson with one search. ripgrep, the usual engine,
// matches in linear time; this path serves what it cannot parse (look-behind, back-references)
// and machines without it.
import { Worker } from "node:worker_threads";
import { abortError } from "../core/abort.js";
import { ResonError } from "../core/errors.js";

/** A file's text to test, line by line. */
export interface LineBatchFile {
  path: string;
  text: string;
}

/** How long one batch of files may take before the search is given up (ms). */
export const DEFAULT_REGEX_TIME_LIMIT_MS = 10_000;

/** Files are sent in batches of about this many characters, or this many files. */
const BATCH_CHARS = 512 * 1024;
const BATCH_FILES = 64;

// A script, not a module file: it needs nothing beside the CLI bundle and loads in ~60 ms.
// Lines are as the JS scan always cut them: on "\n", without a last empty one.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const regex = new RegExp(workerData.source, workerData.flags);
parentPort.on("message", ({ files, limit }) => {
  const found = [];
  let left = limit;
  for (const text of files) {
    const lines = [];
    if (left > 0) {
      const split = text.split("\\n");
      if (split.at(-1) === "") split.pop();
      for (let i = 0; i < split.length && left > 0; i++) {
        if (regex.test(split[i])) { lines.push(i); left--; }
      }
    }
    found.push(lines);
  }
  parentPort.postMessage(found);
});
`;

/** Tests lines against one regular expression in a worker; `close` when done. */
export class RegexLineMatcher {
  private worker: Worker | undefined;
  private pending: LineBatchFile[] = [];
  private pendingChars = 0;

  constructor(
    private readonly regex: RegExp,
    private readonly timeLimitMs = DEFAULT_REGEX_TIME_LIMIT_MS,
    private readonly signal?: AbortSignal,
  ) {}

  /** Queues a file; returns the batches' results when a batch is full (else an empty list). */
  async add(
    file: LineBatchFile,
    limit: number,
  ): Promise<Array<{ path: string; text: string; lines: number[] }>> {
    this.pending.push(file);
    this.pendingChars += file.text.length;
    if (this.pendingChars < BATCH_CHARS && this.pending.length < BATCH_FILES) return [];
    return this.flush(limit);
  }

  /** Tests the queued files; each with the indexes (0-based) of its matching lines, at most `limit` in all. */
  async flush(limit: number): Promise<Array<{ path: string; text: string; lines: number[] }>> {
    const files = this.pending;
    this.pending = [];
    this.pendingChars = 0;
    if (files.length === 0) return [];
    const found = await this.run(
      files.map((file) => file.text),
      limit,
      files,
    );
    return files.map((file, index) => ({ ...file, lines: found[index] ?? [] }));
  }

  /** Stops the worker; resolves when its thread (and what it holds open) is gone. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private run(texts: string[], limit: number, files: LineBatchFile[]): Promise<number[][]> {
    this.worker ??= new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { source: this.regex.source, flags: this.regex.flags },
    });
    const worker = this.worker;
    return new Promise<number[][]>((resolve, reject) => {
      const finish = (settle: () => void) => {
        clearTimeout(timer);
        worker.off("message", onMessage);
        worker.off("error", onError);
        this.signal?.removeEventListener("abort", onAbort);
        settle();
      };
      const onMessage = (found: number[][]) => finish(() => resolve(found));
      const onError = (error: Error) => {
        void this.close();
        finish(() => reject(error));
      };
      const onAbort = () => {
        void this.close();
        finish(() => reject(abortError(this.signal)));
      };
      const timer = setTimeout(() => {
        void this.close();
        const where =
          files.length === 1 ? files[0]!.path : `${files[0]!.path} and ${files.length - 1} more files`;
        finish(() =>
          reject(
            new ResonError(
              "tool_failed",
              `The regular expression ${JSON.stringify(this.regex.source)} took more than ${this.timeLimitMs / 1000} s on ${where}, so the search was stopped.`,
              {
                hint: "It probably backtracks without end (nested repetition such as (a+)+ or (.*)*): write it without nested repetition, or search for a fixed piece of the text.",
                details: { field: "pattern" },
              },
            ),
          ),
        );
      }, this.timeLimitMs);
      worker.on("message", onMessage);
      worker.on("error", onError);
      this.signal?.addEventListener("abort", onAbort, { once: true });
      worker.postMessage({ files: texts, limit });
    });
  }
}
