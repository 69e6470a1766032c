#!/usr/bin/env bash
# Makes sure the system programs the test suite drives for real are installed:
# chromium (UI tests), prometheus + promtool (metrics tests), etcd (cluster tests),
# openssl (certificates made by the TLS tests).
# As root it installs the missing ones with apt-get; otherwise it names the exact
# command and fails, so a test never skips silently for want of a program.
set -euo pipefail

declare -A package_of=([chromium]="chromium fonts-liberation" [prometheus]=prometheus [promtool]=prometheus [etcd]=etcd-server [openssl]=openssl)
missing=()
for program in chromium prometheus promtool etcd openssl; do
  command -v "$program" >/dev/null 2>&1 || missing+=("${package_of[$program]}")
done
[ ${#missing[@]} -eq 0 ] && exit 0
# One package may provide several programs; name each once.
mapfile -t packages < <(printf '%s\n' ${missing[@]} | sort -u)

if [ "$(id -u)" -ne 0 ]; then
  echo "The tests need these Debian packages: ${packages[*]}" >&2
  echo "Install them as root:  apt-get update && apt-get install -y ${packages[*]}" >&2
  exit 1
fi
echo "installing ${packages[*]} (needed by the test suite)"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
# --no-install-recommends keeps the install small (fonts-liberation is chromium's one
# recommend that screenshots need); the services are never started by us.
apt-get install -y -q --no-install-recommends "${packages[@]}" >/dev/null
