#!/usr/bin/env bash
# Installs what the queue-mode suite (npm run test:queue) runs: Redis and Postgres 15 from
# Debian's archive. Idempotent: does nothing when both are there, runs apt-get update only when
# a package is missing. Never starts a system service: the suite starts its own Redis and
# Postgres in temporary folders and stops them itself.
set -euo pipefail

packages=(redis-server postgresql)
missing=()
for package in "${packages[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$package")
	fi
done
if [ "${#missing[@]}" -eq 0 ]; then
	echo "install-services: ${packages[*]} already installed"
	exit 0
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then sudo=(sudo); fi

# Debian's maintainer scripts start a package's service through invoke-rc.d unless
# /usr/sbin/policy-rc.d says no (exit 101). Put one in place for the install when there is none.
policy=/usr/sbin/policy-rc.d
own_policy=0
if [ ! -e "$policy" ]; then
	printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee "$policy" >/dev/null
	"${sudo[@]}" chmod 755 "$policy"
	own_policy=1
fi
cleanup() {
	if [ "$own_policy" -eq 1 ]; then "${sudo[@]}" rm -f "$policy"; fi
}
trap cleanup EXIT

# Wait for another apt run on the machine instead of failing on its lock.
lock=(-o DPkg::Lock::Timeout=600)
echo "install-services: installing ${missing[*]}"
"${sudo[@]}" apt-get "${lock[@]}" update
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get "${lock[@]}" install -y --no-install-recommends "${packages[@]}"
