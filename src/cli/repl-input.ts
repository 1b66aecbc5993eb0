// The terminal input of the REPL: one readline interface for everything (task prompt,
// permission answers, notes), so two readers never race for a line. Lines typed ahead are
// queued and consumed in order; a one-key answer (a permission prompt) is read on a terminal
// as the key is pressed, and never taken from a line typed ahead. Ctrl-C (a keypress on a
// TTY, SIGINT through a pipe) and the end of input (Ctrl-D) are reported to the REPL, which
// decides what they mean.
import type { Interface } from "node:readline";

/** What node:readline's keypress events carry. */
type KeypressListener = (
  text: string | undefined,
  key: { name?: string; ctrl?: boolean; meta?: boolean } | undefined,
) => void;

export interface LineReaderOptions {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  terminal: boolean;
  onInterrupt: () => void;
}

export class LineReader {
  private readonly rl: Interface;
  private readonly queue: string[] = [];
  private waiter: ((line: string | null) => void) | undefined;
  private ended = false;
  private readonly onSigint = () => this.options.onInterrupt();

  constructor(private readonly options: LineReaderOptions) {
    // node:readline is loaded here, not with the bundle: `reson run` never needs it.
    this.rl = process.getBuiltinModule("node:readline").createInterface({
      input: options.input,
      output: options.output,
      terminal: options.terminal,
      historySize: 500,
    });
    this.rl.on("line", (line) => {
      const waiter = this.waiter;
      this.waiter = undefined;
      if (waiter) waiter(line);
      else this.queue.push(line);
    });
    this.rl.on("close", () => {
      this.ended = true;
      const waiter = this.waiter;
      this.waiter = undefined;
      waiter?.(null);
    });
    // On a TTY readline turns Ctrl-C into this event; through a pipe it arrives as a signal.
    this.rl.on("SIGINT", this.onSigint);
    process.on("SIGINT", this.onSigint);
  }

  /** Shows `prompt` and resolves with the next line, or null at the end of input. */
  read(prompt: string): Promise<string | null> {
    const queued = this.queue.shift();
    if (this.ended && queued === undefined) return Promise.resolve(null);
    if (!this.ended) {
      this.rl.setPrompt(prompt);
      this.rl.prompt();
    } else {
      this.options.output.write(prompt);
    }
    if (queued !== undefined) {
      if (!this.options.terminal) this.options.output.write(`${queued}\n`);
      return Promise.resolve(queued);
    }
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }

  /**
   * Shows `prompt` and resolves with one key, lower-cased: on a terminal as soon as it is
   * pressed (no Enter), echoed; through a pipe, the first character of the next line. A key
   * that is not a character reads as "". Null at the end of input (Ctrl-D) or when the read is
   * cancelled (a Ctrl-C is reported to the REPL as always).
   */
  readKey(prompt: string): Promise<string | null> {
    if (!this.options.terminal)
      return this.read(prompt).then((line) => (line === null ? null : line.trim().slice(0, 1).toLowerCase()));
    if (this.ended) return Promise.resolve(null);
    const { input, output } = this.options;
    output.write(prompt);
    // Readline's own key handling is set aside while the key is read (so the key does not
    // land on its line), and put back after.
    const readlineListeners = input.listeners("keypress") as KeypressListener[];
    input.removeAllListeners("keypress");
    return new Promise((resolve) => {
      const finish = (key: string | null) => {
        this.waiter = undefined;
        input.off("keypress", onKey);
        for (const listener of readlineListeners) input.on("keypress", listener);
        resolve(key);
      };
      const onKey: KeypressListener = (text, key) => {
        if (key?.ctrl && key.name === "c") {
          this.options.onInterrupt();
          return;
        }
        if (key?.ctrl && key.name === "d") {
          output.write("\n");
          finish(null);
          return;
        }
        // One printable character; Enter, arrows, Escape and the like read as "".
        const char = text !== undefined && !key?.ctrl && !key?.meta && /^\P{Cc}$/u.test(text) ? text : "";
        output.write(`${char}\n`);
        finish(char.toLowerCase());
      };
      input.on("keypress", onKey);
      this.waiter = finish;
    });
  }

  /** What is typed on the prompt line now (cleared by a Ctrl-C). */
  get currentLine(): string {
    return this.rl.line;
  }

  clearLine(): void {
    // Readline has no public "clear the line" API: write Ctrl-U (kill to start) to it.
    this.rl.write(null, { ctrl: true, name: "u" });
  }

  /** Answers a pending read with `line` (used to give up a permission prompt). */
  cancelRead(line: string | null): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.(line);
  }

  get waiting(): boolean {
    return this.waiter !== undefined;
  }

  close(): void {
    process.off("SIGINT", this.onSigint);
    this.rl.close();
  }
}

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/**
 * A one-line spinner on stderr, only on a TTY. It draws on the current line and clears only
 * that line, so the scrollback is never redrawn; it is started only at the start of a line.
 */
export class Spinner {
  private timer: NodeJS.Timeout | undefined;
  private frame = 0;
  private label = "";

  constructor(private readonly out: NodeJS.WriteStream | undefined) {}

  start(label: string): void {
    if (!this.out) return;
    this.label = label;
    if (this.timer) return;
    this.draw();
    this.timer = setInterval(() => this.draw(), 80);
    this.timer.unref();
  }

  stop(): void {
    if (!this.timer || !this.out) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.out.write("\r\u001b[2K");
  }

  private draw(): void {
    this.frame = (this.frame + 1) % FRAMES.length;
    this.out?.write(`\r\u001b[2K\u001b[2m${FRAMES[this.frame]} ${this.label}\u001b[0m`);
  }
}
