// One README shell block typed into one shell, statement by statement, in order. Each statement
// must be the one the scenario expects next (so a changed README line fails its scenario,
// naming the line), must exit as the scenario says (0 unless it says otherwise), and is changed
// only by the placeholder rules the scenario declares with replace(). A statement with an
// optional part (`reson workspace list [--json]`) is run without it and with it.
import { existsSync, readFileSync } from "node:fs";
import { expect } from "vitest";
import { type ShellResult, ShellSession } from "../support/shell-session.js";
import { type ReadmeBlock, type Statement, shellStatements, withoutComment } from "./readme-blocks.js";
import type { ReadmeUser } from "./readme-user.js";

/** `[--json]`, `[--status active]`, `[reson-lint]`: an optional part of a command. */
const OPTIONAL = /\s\[(--?[\w-]+(?: [\w.-]+)?|[\w-]+)\](?=\s|$)/;
/** What only stands for something (`01K…`, `<id>`): left over, it means a rule is missing. */
const PLACEHOLDER = /…|<[a-z][^<>]*>|\b01JQ7Z3K\b/;

export interface StatementOptions {
  /** The exit status expected (default 0). */
  code?: number;
  /** Standard input (default: none). */
  input?: string;
  timeoutMs?: number;
}

export class BlockRun {
  readonly statements: Statement[];
  private index = 0;
  private readonly rules: Array<[string, string]> = [];
  private backgrounds = 0;

  private constructor(
    readonly block: ReadmeBlock,
    readonly user: ReadmeUser,
    readonly shell: ShellSession,
  ) {
    this.statements = shellStatements(block);
  }

  /** A new shell for the user, in their working folder, for `block`. */
  static open(block: ReadmeBlock, user: ReadmeUser): BlockRun {
    expect(block.lang, `README line ${block.line}`).toBe("sh");
    return new BlockRun(block, user, new ShellSession({ cwd: user.work, env: user.env }));
  }

  /** A placeholder rule: `written` becomes `by` in every later statement. */
  replace(written: string, by: string): this {
    this.rules.push([written, by]);
    return this;
  }

  /** Runs the next statement, which must start with `prefix` and have no optional part. */
  async run(prefix: string, options: StatementOptions = {}): Promise<ShellResult> {
    const statement = this.take(prefix);
    expect(
      OPTIONAL.test(withoutComment(statement.text)),
      `README line ${statement.line} has an optional part: use runBoth`,
    ).toBe(false);
    return this.execute(statement, this.substitute(statement.text), options);
  }

  /** Runs the next statement without its optional part, then with it. */
  async runBoth(
    prefix: string,
    options: StatementOptions & { withCode?: number } = {},
  ): Promise<{ without: ShellResult; with: ShellResult }> {
    const statement = this.take(prefix);
    const text = this.substitute(statement.text);
    expect(OPTIONAL.test(text), `README line ${statement.line} has no optional part`).toBe(true);
    const without = await this.execute(statement, text.replace(OPTIONAL, ""), options);
    const withIt = await this.execute(
      statement,
      text.replace(OPTIONAL, (_all, part: string) => ` ${part}`),
      { ...options, ...(options.withCode === undefined ? {} : { code: options.withCode }) },
    );
    return { without, with: withIt };
  }

  /**
   * Starts the next statement (a server) in the background, its output into a log, as a user
   * would in another terminal; resolves once the log matches `ready`. close() ends it.
   */
  async background(prefix: string, ready: RegExp, timeoutMs = 30_000): Promise<Background> {
    const statement = this.take(prefix);
    const log = `${this.user.scratch}/background-${this.block.line}-${++this.backgrounds}.log`;
    const text = this.substitute(statement.text);
    expectNoPlaceholder(statement, text);
    // A newline before the brace: the statement may end in a comment.
    const started = await this.shell.run(`{ ${text}\n} > '${log}' 2>&1 &`);
    expect(started.code).toBe(0);
    const background = new Background(log, `README line ${statement.line}: ${text}`);
    await background.waitFor(ready, timeoutMs);
    return background;
  }

  /** A command of the test's own (not README's), to look at what the block did. */
  async probe(command: string, options: StatementOptions = {}): Promise<ShellResult> {
    const result = await this.shell.run(command, options);
    expect(result.code, `${command}\n${result.stdout}\n${result.stderr}`).toBe(options.code ?? 0);
    return result;
  }

  /** Every statement of the block has been run. */
  end(): void {
    const left = this.statements.slice(this.index).map((s) => `  line ${s.line}: ${s.text}`);
    expect(left, `README line ${this.block.line} (${this.block.heading}): statements not run`).toEqual([]);
  }

  close(): Promise<void> {
    return this.shell.close();
  }

  private take(prefix: string): Statement {
    const statement = this.statements[this.index];
    expect(
      statement?.text.slice(0, prefix.length),
      `README line ${this.block.line} (${this.block.heading}): statement ${this.index + 1} begins so`,
    ).toBe(prefix);
    this.index++;
    return statement!;
  }

  private substitute(text: string): string {
    let result = text;
    for (const [written, by] of this.rules) result = result.replaceAll(written, by);
    return result;
  }

  private async execute(statement: Statement, text: string, options: StatementOptions): Promise<ShellResult> {
    expectNoPlaceholder(statement, text);
    const result = await this.shell.run(text, {
      ...(options.input === undefined ? {} : { input: options.input }),
      timeoutMs: options.timeoutMs ?? 60_000,
    });
    expect(
      result.code,
      `README line ${statement.line}: ${text}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`,
    ).toBe(options.code ?? 0);
    return result;
  }
}

/** What is left of the examples once the rules have run must be nothing (comments aside). */
function expectNoPlaceholder(statement: Statement, text: string): void {
  const command = text.split("\n").map(withoutComment).join("\n");
  expect(command, `README line ${statement.line}: a placeholder no rule replaces`).not.toMatch(PLACEHOLDER);
}

/** A statement left running in the background, and its log. */
export class Background {
  constructor(
    readonly logFile: string,
    private readonly what: string,
  ) {}

  log(): string {
    return existsSync(this.logFile) ? readFileSync(this.logFile, "utf8") : "";
  }

  /** Resolves with the first match of `pattern` in the log; bounded by `timeoutMs`. */
  async waitFor(pattern: RegExp, timeoutMs = 30_000): Promise<RegExpMatchArray> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const text = this.log();
      const match = text.match(pattern);
      if (match) return match;
      if (Date.now() > deadline)
        throw new Error(`${this.what}\ndid not log ${pattern} within ${timeoutMs} ms:\n${text}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
