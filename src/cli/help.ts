// Usage text of the reson command, and the names of its subcommands.

/** The subcommands, as errors list them and "did you mean" picks from. */
export const COMMAND_NAMES = [
  "run",
  "resume",
  "sessions",
  "trace",
  "diff",
  "rewind",
  "tools",
  "skills",
  "memory",
  "experiences",
  "mcp",
  "plugin",
  "doctor",
  "permissions",
  "gc",
  "serve",
  "worker",
  "channel",
  "workspace",
  "acp",
] as const;

/** "Commands: run, resume, …" with the nearest command to `typed` first, when one is near. */
export function unknownCommandText(typed: string, near: string): string {
  return `unknown command "${typed}".${near} Commands: ${COMMAND_NAMES.join(", ")} (or none, for the interactive terminal). See \`reson --help\`.`;
}

export const MAIN_HELP = `reson: an agent runtime that works in your folder

Usage:
  reson [options]                    interactive terminal in this folder (/help inside lists
                                     the slash commands; permission mode default: asks)
  reson --continue [options]         reopen this workspace's latest session interactively
  reson run [options] <task...>      run an agent on a task and exit (headless)
  reson run [options] -              read the task from standard input
  reson run --continue [task...]     add a task to this workspace's latest session
                                     (with no task: finish its latest run)
  reson resume <id> [options]        continue a run that stopped, from its last committed step
                                     (refused while another live process runs it; --force
                                     takes over one whose lease expired, e.g. a stopped process)
  reson sessions [-n N] [--json]     list sessions, newest first, and where the data lives
  reson trace show <id> [--context]  print a run as a tree of steps (--context: what each
                                     model call saw: sections, files, sizes, hashes)
  reson trace export <id> [--format json|jsonl] [--output file|-]
  reson diff [<id>] [--step N]       what a run (or one step) changed in its workspace, as a
                                     unified diff (--stat: one line per file; --json); no id:
                                     the latest run of this workspace
  reson rewind [<id>] [--to-step N]  put the workspace back as it was before the run (or its
                                     step N), after showing what changes and asking (--yes);
                                     --files-only keeps the conversation; --undo puts back
                                     what the latest rewind changed; --dry-run only shows
  reson tools [--json] [-w dir]      per-tool statistics of this project: calls, ok %, failures
                                     by code, p50/p95 duration, health flags
  reson skills [-w dir] [--json]     the skills found for this workspace, where from, and warnings
  reson memory list|search|show|edit|forget   what reson remembers of this project (forget
                                     reaches the text index, vectors and summaries too)
  reson experiences list|show|retire|confirm  the rules it learnt from earlier runs
  reson mcp list|add|remove|test     MCP servers: where defined, status, tools and their
                                     schema tokens; add/remove (user or project .mcp.json);
                                     test one alone
  reson plugin add|list|show|remove  plugins: add a folder, a tarball or an npm package (user
                                     or --project scope); enable|disable|trust|update
  reson doctor [-w dir] [--json]     what this machine guarantees: OS sandbox for commands,
                                     secrets file, store, tools; what to install when not
  reson permissions [approve]        the rules and mode runs here get, and where each comes
                                     from; approve what this workspace's .reson/settings files
                                     allow (held until you do: a cloned repository ships them)
  reson workspace create|list|show    registered workspaces by name (\`reson workspace --help\`):
                                     default|rename|remove|use|settings|templates
  reson gc --older-than <30d|12h>    remove old runs and their checkpoints and snapshots: says
           [--dry-run | --yes]       what would go and asks (--dry-run: only say; --yes: no question)
  reson serve [options]              the HTTP API with live events (127.0.0.1:7878, bearer
                                     token); executes runs itself unless --workers 0
  reson worker [options]             execute runs queued through reson serve (PostgreSQL:
                                     any number of workers on any machines)
  reson channel list|status|pair     chat channels of reson serve (Telegram, webhooks): their
                                     sessions, and pairing codes to approve
  reson acp [options]                the Agent Client Protocol on stdin/stdout, for editors
                                     (Zed, JetBrains, Neovim, Emacs) and acpx; see README
  reson --version | --help

Ids: a session or run id, or any unique prefix of one.

Run options (also for resume, where they override what the run was started with):
  -w, --workspace <dir|name>   folder the agent works in, or a registered workspace's name
                               or id (a folder here wins over a name); default
                               $RESON_WORKSPACE, else the current folder, else (in the home
                               folder, / or a system folder) the default workspace
  -p, --provider <name>        anthropic | openai | google | deepseek | openrouter | ollama | openai-compatible
  -m, --model <id>             model id (default: the provider's default model)
      --base-url <url>         endpoint of the provider (required for openai-compatible)
      --api-key <key>          API key (default: the provider's environment variable; prefer that)
      --max-iterations <n>     model calls allowed in the run (default 50)
      --max-tokens <n>         tokens the run may use, its sub-agents included (default no limit)
      --max-cost <usd>         dollars the run may spend, its sub-agents included (refused for
                               a model with no known price: use --max-tokens there)
      --max-time <duration>    wall time the run may take, e.g. 90s, 10m, 2h
      --json                   print one JSON event per line on stdout instead of text
      --interactive-stdin      answer the agent's questions (ask_human) on standard input,
                               one line each: text, a choice's number, or with --json
                               {"toolCallId": "…", "answer": "…"}; the task must then be an
                               argument (not "-")
      --permission-mode <m>    default | acceptEdits (headless default) | plan | dontAsk | bypass
      --allow <rule>           allow calls matching a rule, e.g. 'Bash(npm test:*)' (repeatable)
      --deny <rule>            deny calls matching a rule (repeatable)
      --preset <name>          agent type: default, explore, plan, analyst, evaluate, or one
                               from .reson/presets.json / $RESON_HOME/presets.json
      --sandbox off            run commands without the OS sandbox (default on; with no
                               working sandbox, headless runs refuse commands unless this
                               is given, and the terminal asks before every command)
      --allow-mcp <name>       start the project's MCP server <name> (.mcp.json or
                               .reson/config.json) without asking (repeatable); headless
                               runs start no unapproved project server otherwise
      --browser headed         show the browser tools' Chromium window (default headless)
      --trust-workspace        work in the home folder, a folder above it, or one holding
                               $RESON_HOME, for this run (the terminal asks once and
                               remembers; headless runs refuse such folders without this)

Provider selection without --provider: the first of ANTHROPIC_API_KEY, OPENAI_API_KEY,
GEMINI_API_KEY, DEEPSEEK_API_KEY, OPENROUTER_API_KEY that is set, else a local Ollama.

Secrets: $RESON_HOME/secrets.json (mode 0600), used as <secret>name</secret>; see README.

Data: $RESON_HOME/reson.db (RESON_HOME defaults to ~/.reson), or PostgreSQL when
RESON_DATABASE_URL=postgres://… is set. API keys are never stored.
Environment: RESON_PROVIDER, RESON_MODEL, RESON_BASE_URL, RESON_MAX_ITERATIONS.
Config files: $RESON_HOME/config.json, <workspace>/.reson/config.json.

Exit status: 0 completed, 1 the agent failed (or this process lost the run to another),
2 usage or configuration error, or the run is held by another process (nothing ran),
130 interrupted.
`;
