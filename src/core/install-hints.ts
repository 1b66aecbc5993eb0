// The one command that installs each system program reson, or its test suite, relies on.
// `reson doctor`, the sandbox probe and the test suite's skip block all print these, so a user
// meets the same line wherever the problem shows. Debian's name first (what CI runs on).

export const INSTALL = {
  bubblewrap: "apt-get install bubblewrap",
  ripgrep: "apt-get install ripgrep",
  git: "apt-get install git",
  tmux: "apt-get install tmux",
  postgresql: "apt-get install postgresql",
  chromium: "apt-get install chromium",
  jq: "apt-get install jq",
  curl: "apt-get install curl",
} as const;

/** The same programs on other distributions, where the package name or manager differs. */
export const INSTALL_ELSEWHERE: Partial<Record<keyof typeof INSTALL, string>> = {
  bubblewrap: "dnf install bubblewrap, apk add bubblewrap",
  ripgrep: "dnf install ripgrep, apk add ripgrep, brew install ripgrep",
};

/** pgvector for a PostgreSQL major version: Debian 13+ and the PGDG repository package it so. */
export function installPgvector(major: string | number): string {
  return `apt-get install postgresql-${major}-pgvector`;
}

/** "apt-get install x (or: dnf install x, …)": the line with its alternatives, for messages. */
export function installLine(program: keyof typeof INSTALL): string {
  const elsewhere = INSTALL_ELSEWHERE[program];
  return elsewhere ? `${INSTALL[program]} (or: ${elsewhere})` : INSTALL[program];
}
