#!/usr/bin/env bash
# Installs the named Debian packages that are missing, saying what it does.
# Usage: scripts/ensure-debs.sh PACKAGE...
set -euo pipefail
missing=()
for pkg in "$@"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "ringhook: these Debian packages are needed: ${missing[*]}" >&2
  echo "ringhook: install them as root: apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "ringhook: installing Debian packages: ${missing[*]}" >&2
# A fresh Debian machine often runs unattended-upgrades just after boot, and two installs may run
# at once: apt waits up to 10 minutes for dpkg's lock instead of failing at once.
lock_wait=(-o DPkg::Lock::Timeout=600)
stamp=/var/lib/apt/periodic/ringhook-update-stamp
if [ ! -f "$stamp" ] || [ -n "$(find "$stamp" -mmin +360 2>/dev/null)" ]; then
  echo "ringhook: apt-get update" >&2
  apt-get "${lock_wait[@]}" update -qq >&2
  mkdir -p "$(dirname "$stamp")" && touch "$stamp"
fi
DEBIAN_FRONTEND=noninteractive apt-get "${lock_wait[@]}" install -y -qq --no-install-recommends "${missing[@]}" >&2
echo "ringhook: installed ${missing[*]}" >&2
