// Usage text of the reson command.

export const MAIN_HELP = `reson: an agent runtime that works in your folder

Usage:
  reson run [options] <task...>    run an agent on a task and exit (headless)
  reson run [options] -            read the task from standard input
  reson --version                  print the version
  reson --help                     print this help

Run options:
  -w, --workspace <dir>        folder the agent works in (default: current directory)
  -p, --provider <name>        anthropic | openai | google | deepseek | openrouter | ollama | openai-compatible
  -m, --model <id>             model id (default: the provider's default model)
      --base-url <url>         endpoint of the provider (required for openai-compatible)
      --api-key <key>          API key (default: the provider's environment variable; prefer that)
      --max-iterations <n>     model calls allowed in the run (default 50)
      --json                   print one JSON event per line on stdout instead of text

Provider selection without --provider: the first of ANTHROPIC_API_KEY, OPENAI_API_KEY,
GEMINI_API_KEY, DEEPSEEK_API_KEY, OPENROUTER_API_KEY that is set, else a local Ollama.

Environment: RESON_HOME (default ~/.reson), RESON_PROVIDER, RESON_MODEL, RESON_BASE_URL,
RESON_MAX_ITERATIONS. Config files: $RESON_HOME/config.json, <workspace>/.reson/config.json.

Exit status: 0 completed, 1 the agent failed, 2 usage or configuration error, 130 interrupted.
`;
