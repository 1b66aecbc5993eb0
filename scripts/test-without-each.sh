#!/usr/bin/env bash
# The tests that need a system package, run once per package with that one hidden and the rest
# present (scripts/test-without.sh), so a test that branches on one package while assuming
# another is caught; `test-without.sh all -- npm test` covers the all-absent case.
#   sudo scripts/test-without-each.sh            # bwrap tmux rg chromium postgres jq curl
#   sudo scripts/test-without-each.sh bwrap tmux # only these
# Prints one line per package ("without bwrap: 41 files, 512 passed, 0 failed, 88 skipped")
# and exits 1 if any run had a failure.
set -uo pipefail
cd "$(dirname "$0")/.."
names=("$@")
[[ ${#names[@]} -gt 0 ]] || names=(bwrap tmux rg chromium postgres jq curl)
# Every test file that says it needs one of them (skipWithout / lacks in test/support/requirements.ts).
mapfile -t files < <(grep -rlE "skipWithout\(|lacks\(" test --include='*.test.ts' | sort)
status=0
for name in "${names[@]}"; do
  report=$(mktemp)
  scripts/test-without.sh "$name" -- npx vitest run --reporter=json --outputFile="$report" "${files[@]}" \
    >/dev/null 2>&1
  node -e '
    const r = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
    const skipped = r.numPendingTests + r.numTodoTests;
    console.log(`without ${process.argv[2]}: ${r.numTotalTestSuites ? r.testResults.length : 0} files, ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`);
    for (const file of r.testResults)
      for (const test of file.assertionResults)
        if (test.status === "failed") console.log(`  failed: ${file.name.replace(process.cwd() + "/", "")}: ${test.title}`);
    process.exit(r.numFailedTests > 0 ? 1 : 0);
  ' "$report" "$name" || status=1
  rm -f "$report"
done
exit $status
