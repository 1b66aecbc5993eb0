#!/usr/bin/env bash
# Runs a command as on a machine that lacks some of the system packages the tests use, so a
# test that needs one but does not say so fails here instead of on a contributor's machine:
#   sudo scripts/test-without.sh bwrap -- npm test
#   sudo scripts/test-without.sh tmux rg -- npx vitest run test/cli
#   sudo scripts/test-without.sh all -- npm test
# Names: bwrap (the command sandbox), tmux, rg (ripgrep), chromium, postgres (the server's
# binaries), jq, curl; "all" hides every one. Inside a private mount namespace (root only, the
# machine itself is untouched), /usr/bin is replaced by links to everything but the hidden
# programs, and PostgreSQL's folder by an empty one.
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

work=$(mktemp -d)
mkdir "$work/bin-original" "$work/bin"
mount --bind /usr/bin "$work/bin-original"
for path in "$work"/bin-original/*; do
  name=${path##*/}
  skip=0
  for h in "${hidden[@]}"; do
    case $h in
      postgres) ;;
      chromium) [[ $name == chromium || $name == chromium-browser || $name == google-chrome ]] && skip=1 ;;
      *) [[ $name == "$h" ]] && skip=1 ;;
    esac
  done
  [[ $skip == 1 ]] && continue
  # A relative link (npx -> ../lib/node_modules/…) is made absolute, resolved where it lies.
  target=$(readlink -f "/usr/bin/$name" || true)
  case $target in
    "") target=$path ;;
    /usr/bin/*) target="$work/bin-original/${target#/usr/bin/}" ;;
  esac
  ln -s "$target" "$work/bin/$name"
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
exec "$@"
