#!/usr/bin/env bash
# Makes an Asterisk (18+, with ARI and PJSIP) available to ringhook. Idempotent.
#
# - If the host's apt knows an `asterisk` package (Ubuntu, Debian 13+), installs it on the host.
# - Otherwise (Debian 12 has none) builds a Debian sid root file system with debootstrap, cached
#   outside the checkout in ${RINGHOOK_CACHE_DIR:-$HOME/.cache/ringhook}/asterisk-rootfs. The build
#   goes into a temporary directory renamed into place only when complete, so a half-built tree is
#   never taken for a finished one.
#
# Progress goes to stderr. The last line of stdout says how to run Asterisk: the root file system's
# absolute path, or the word "host". The same line is written to $CACHE/asterisk-runtime.
#
# Environment: RINGHOOK_CACHE_DIR, RINGHOOK_DEBIAN_MIRROR (default: the Debian archive in the host's
# apt sources, else http://deb.debian.org/debian),
# RINGHOOK_ASTERISK_MODE=auto|host|rootfs (default auto), RINGHOOK_ASTERISK_OWNER: the unprivileged
# user that will run ringhook serve (e.g. ringhook): the root file system is made that user's, so
# that serve can run Asterisk in it from a user namespace, without root (see deploy/ringhook.service).
set -euo pipefail

# Bump when the contents the build puts into the root file system change: an older tree is rebuilt.
ROOTFS_FORMAT=1
PACKAGES_IN_ROOTFS=asterisk,asterisk-modules,ca-certificates

# Without HOME (a service unit with no User=), the user's home from the password database.
cache_dir=${RINGHOOK_CACHE_DIR:-${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}/.cache/ringhook}
rootfs=$cache_dir/asterisk-rootfs
marker=.ringhook-rootfs-complete
# The Debian archive the host's own apt uses (a local mirror, an apt-cacher-ng…): the first source
# whose path ends in /debian (not /debian-security), from apt's own reading of its sources, which
# needs no `apt-get update`.
host_debian_mirror() {
  apt-get indextargets --no-release-info --format '$(REPO_URI)' 'Identifier: Packages' 2>/dev/null |
    awk '$1 ~ /\/debian\/?$/ { sub(/\/$/, "", $1); print $1; exit }'
}
# Asked only when a build needs it: apt's reading of its sources costs about a second of CPU, at
# every `npm start` when the root file system is already there.
resolve_mirror() {
  mirror=${RINGHOOK_DEBIAN_MIRROR:-$(host_debian_mirror)}
  mirror=${mirror:-http://deb.debian.org/debian}
  # debootstrap fetches with wget, which knows apt's proxy setting only through the environment.
  if [ -z "${http_proxy:-}" ]; then
    eval "$(apt-config shell http_proxy Acquire::http::Proxy 2>/dev/null)" || true
    [ -n "${http_proxy:-}" ] && export http_proxy
  fi
  return 0
}
mode=${RINGHOOK_ASTERISK_MODE:-auto}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

say() { echo "ringhook: $*" >&2; }
die() { say "error: $*"; exit 1; }

# `--mirror`: print the Debian mirror a build would use, and stop.
if [ "${1:-}" = --mirror ]; then
  resolve_mirror
  printf '%s\n' "$mirror"
  exit 0
fi

finish() {
  mkdir -p "$cache_dir"
  printf '%s\n' "$1" >"$cache_dir/asterisk-runtime.tmp.$$"
  mv -f "$cache_dir/asterisk-runtime.tmp.$$" "$cache_dir/asterisk-runtime"
  printf '%s\n' "$1"
  exit 0
}

host_has_asterisk_candidate() {
  # An empty apt cache (fresh machine) would hide the package: refresh once if there are no lists.
  if ! compgen -G '/var/lib/apt/lists/*Packages*' >/dev/null; then
    say "apt-get update (no package lists yet)"
    apt-get -o DPkg::Lock::Timeout=600 update -qq >&2
  fi
  local candidate
  candidate=$(apt-cache policy asterisk 2>/dev/null | awk '/Candidate:/ {print $2}')
  [ -n "$candidate" ] && [ "$candidate" != "(none)" ]
}

# Unmounts anything left mounted below $1 (a build killed half-way leaves debootstrap's /proc etc.).
unmount_below() {
  local dir
  dir=$(realpath -m "$1")
  awk -v d="$dir" '$2 == d || index($2, d "/") == 1 {print $2}' /proc/self/mounts | sort -r |
    while read -r m; do umount -l "$m" 2>/dev/null || true; done
}

remove_tree() {
  unmount_below "$1"
  # --one-file-system: never descend into something still mounted (e.g. a bind of the host's /dev).
  rm -rf --one-file-system "$1"
}

rootfs_is_complete() {
  [ -f "$rootfs/$marker" ] && [ "$(cat "$rootfs/$marker")" = "format=$ROOTFS_FORMAT" ] &&
    [ -x "$rootfs/usr/sbin/asterisk" ]
}

if [ "$mode" = host ] || { [ "$mode" = auto ] && command -v asterisk >/dev/null 2>&1; }; then
  command -v asterisk >/dev/null 2>&1 || { "$here/ensure-debs.sh" asterisk asterisk-modules; }
  say "using the host's Asterisk: $(command -v asterisk)"
  finish host
fi
# Without root, only an Asterisk already provisioned (by root, for this user) can be used.
if [ "$(id -u)" -ne 0 ]; then
  if [ "$mode" != host ] && rootfs_is_complete; then
    say "Asterisk root file system already built: $rootfs"
    finish "$rootfs"
  fi
  die "provisioning Asterisk needs root (debootstrap, apt-get): run once as root 'ringhook provision --owner $(id -un)' with this RINGHOOK_CACHE_DIR ($cache_dir); then this user runs it"
fi
if [ "$mode" = auto ] && host_has_asterisk_candidate; then
  say "the host's apt has an asterisk package: installing it"
  "$here/ensure-debs.sh" asterisk asterisk-modules
  finish host
fi
[ "$mode" = auto ] || [ "$mode" = rootfs ] || die "RINGHOOK_ASTERISK_MODE must be auto, host or rootfs"

mkdir -p "$cache_dir"
exec 9>"$cache_dir/.asterisk-rootfs.lock"
say "waiting for the provisioning lock" && flock 9 # two concurrent runs build once

# Inside a user namespace the unprivileged user is root only over what it owns: the tree becomes its.
give_to_owner() {
  local owner=${RINGHOOK_ASTERISK_OWNER:-}
  [ -n "$owner" ] || return 0
  id -u "$owner" >/dev/null 2>&1 || die "RINGHOOK_ASTERISK_OWNER: no user named $owner (useradd --system $owner)"
  if [ "$(stat -c %U "$rootfs")" != "$owner" ] || [ "$(stat -c %U "$rootfs/usr/sbin/asterisk")" != "$owner" ]; then
    say "giving the root file system to $owner (it runs Asterisk from a user namespace)"
    chown -R --no-dereference "$owner:" "$rootfs"
  fi
  chmod 755 "$cache_dir" # the owner must reach the tree; the cache holds nothing secret
}

if rootfs_is_complete; then
  say "Asterisk root file system already built: $rootfs"
  give_to_owner
  finish "$rootfs"
fi

"$here/ensure-debs.sh" debootstrap debian-archive-keyring

# Leftovers of interrupted builds (we hold the lock, so nobody else is building).
for stale in "$cache_dir"/asterisk-rootfs.tmp.* "$cache_dir"/asterisk-rootfs.old.*; do
  [ -e "$stale" ] || continue
  say "removing an unfinished build: $stale"
  remove_tree "$stale"
done

tmp=$cache_dir/asterisk-rootfs.tmp.$$
trap 'say "build failed; cleaning $tmp"; remove_tree "$tmp"' EXIT
started=$(date +%s)
resolve_mirror
say "building a Debian sid root file system with Asterisk in $tmp from $mirror (about 1 minute, ~500 MB)"
debootstrap --variant=minbase --include="$PACKAGES_IN_ROOTFS" sid "$tmp" "$mirror" >&2
unmount_below "$tmp"

# The package's folders belong to the `asterisk` user; we run as root on a config set of our own,
# but make the defaults readable too so `asterisk -rx` and modules that peek at them work.
chown -R root:root "$tmp/etc/asterisk" "$tmp/var/lib/asterisk" "$tmp/var/spool/asterisk" \
  "$tmp/var/log/asterisk" "$tmp/var/run/asterisk" 2>/dev/null || true
# Shrink the tree: the package cache is not needed at run time.
rm -rf "$tmp/var/cache/apt/archives/"*.deb
version=$(chroot "$tmp" /usr/sbin/asterisk -V) || die "the built Asterisk does not run"
say "built $version in $(($(date +%s) - started)) s"
echo "format=$ROOTFS_FORMAT" >"$tmp/$marker"

if [ -e "$rootfs" ]; then
  old=$cache_dir/asterisk-rootfs.old.$$
  mv -T "$rootfs" "$old"
  mv -T "$tmp" "$rootfs"
  remove_tree "$old"
else
  mv -T "$tmp" "$rootfs"
fi
trap - EXIT
give_to_owner
say "Asterisk root file system ready: $rootfs"
finish "$rootfs"
