#!/bin/sh
# Install the Debian packages bcbench builds and tests with (chromium:
# the headless browser tests/integration/html.sh reads report.html with;
# python3-labgrid and python3-pytest: tests/integration/labgrid.sh runs
# contrib/labgrid's driver through labgrid's pytest plugin).
# As root: apt-get. Otherwise sudo if it works without a password prompt
# failing; otherwise print the exact command and exit non-zero.
set -eu

PKGS="build-essential pkg-config clang libclang-rt-14-dev make
libsigrok-dev libserialport-dev libftdi1-dev libusb-1.0-0-dev
libcjson-dev libzip-dev libcmocka-dev libglib2.0-dev nettle-dev
sigrok-cli libxml2-utils python3-jsonschema time chromium
python3-labgrid python3-pytest"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done

if [ -z "$missing" ]; then
	echo "install-deps: all packages present"
	exit 0
fi

cmd="apt-get install -y --no-install-recommends$missing"
echo "install-deps: missing:$missing"
if [ "$(id -u)" = 0 ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q || true
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	sudo -n apt-get update -q || true
	# shellcheck disable=SC2086
	sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
else
	echo "install-deps: not root and no sudo; run:" >&2
	echo "  sudo $cmd" >&2
	exit 1
fi
