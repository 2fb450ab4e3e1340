#!/usr/bin/env bash
# Installs Debian's Chromium for the editor suite (npm run test:editor) when it is missing.
# playwright-core downloads no browser of its own; the suite drives /usr/bin/chromium.
# Safe to run again: does nothing when Chromium is already installed.
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
	exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	SUDO="sudo"
fi

export DEBIAN_FRONTEND=noninteractive
# A fresh machine's package lists may be empty or stale (a stale list names a version the archive
# no longer has), so refresh them before the one install.
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends chromium
/usr/bin/chromium --version
