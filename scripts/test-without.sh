#!/usr/bin/env bash
# Runs a command as on a machine that lacks some of the system packages the tests use, so a
# test that needs one but does not say so fails here instead of on a contributor's machine:
#   sudo scripts/test-without.sh bwrap -- npm test
#   sudo scripts/test-without.sh tmux rg -- npx vitest run test/cli
#   sudo scripts/test-without.sh all -- npm test
# Names: bwrap (the command sandbox), tmux, rg (ripgrep), chromium, postgres (the server's
# binaries), jq, curl; "all" hides every one. Inside a private mount namespace (root only, the
# machine itself is untouched), /usr/bin is replaced by a copy without the hidden programs,
# and PostgreSQL's folder by an empty one.
set -euo pipefail

hidden=()
while [[ $# -gt 0 && $1 != "--" ]]; do
  case $1 in
    all) hidden+=(bwrap tmux rg chromium postgres jq curl) ;;
    bwrap | tmux | rg | chromium | postgres | jq | curl) hidden+=("$1") ;;
    *) echo "test-without: unknown name $1 (bwrap tmux rg chromium postgres jq curl all)" >&2; exit 2 ;;
  esac
  shift
done
[[ ${1:-} == "--" ]] || { echo "usage: test-without.sh <name>... -- <command>" >&2; exit 2; }
shift
[[ $# -gt 0 ]] || { echo "test-without: no command given" >&2; exit 2; }
[[ $(id -u) == 0 ]] || { echo "test-without: needs root (a private mount namespace)" >&2; exit 2; }

if [[ -z ${RESON_TEST_WITHOUT_INSIDE:-} ]]; then
  export RESON_TEST_WITHOUT_INSIDE=1
  exec unshare --mount --propagation private "$0" "${hidden[@]}" -- "$@"
fi

# The copy is made of hard links (same file system as /usr, so it costs nothing) rather than
# symbolic links into a scratch folder: the command sandbox cannot see that folder, and a program
# it runs must still be found under /usr/bin.
work=$(mktemp -d -p /var/tmp)
cp -al /usr/bin "$work/bin" 2>/dev/null || cp -a /usr/bin "$work/bin"
for h in "${hidden[@]}"; do
  case $h in
    postgres) ;;
    chromium) rm -f "$work/bin/chromium" "$work/bin/chromium-browser" "$work/bin/google-chrome" ;;
    *) rm -f "$work/bin/$h" ;;
  esac
done
mount --bind "$work/bin" /usr/bin
for h in "${hidden[@]}"; do
  if [[ $h == postgres && -d /usr/lib/postgresql ]]; then
    mkdir -p "$work/empty"
    mount --bind "$work/empty" /usr/lib/postgresql
  fi
done
echo "test-without: hidden: ${hidden[*]}" >&2
unset RESON_TEST_WITHOUT_INSIDE
status=0
"$@" || status=$?
umount -l /usr/bin
umount -l /usr/lib/postgresql 2>/dev/null || true
rm -rf "$work" 2>/dev/null || true
exit $status
