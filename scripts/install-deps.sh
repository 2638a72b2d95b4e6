#!/bin/sh
# Install the Debian packages bcbench builds and tests with (chromium:
# the headless browser tests/integration/html.sh reads report.html with;
# python3-labgrid and python3-pytest: tests/integration/labgrid.sh runs
# contrib/labgrid's driver through labgrid's pytest plugin; dpkg-dev,
# debhelper, fakeroot: tests/integration/deb.sh builds the .deb; rsync,
# git, curl, unzip, python3-yaml and node: what tests/integration/gitlab.sh
# runs the GitLab pipeline with).
# As root: apt-get. Otherwise sudo if it works without a password prompt
# failing; otherwise print the exact command and exit non-zero.
# Then gitlab-ci-local from npm, pinned by tests/gitlab/package-lock.json,
# into build/npm as the invoking user (no root needed).
set -eu
cd "$(dirname "$0")/.."

PKGS="build-essential pkg-config clang libclang-rt-14-dev make
libsigrok-dev libserialport-dev libftdi1-dev libusb-1.0-0-dev
libcjson-dev libzip-dev libcmocka-dev libglib2.0-dev nettle-dev libdeflate-dev
sigrok-cli libxml2-utils python3-jsonschema time chromium
python3-labgrid python3-pytest dpkg-dev debhelper fakeroot
rsync git curl unzip python3-yaml"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done

# Node and npm: Debian's, unless a node is already there (e.g. NodeSource's
# nodejs, which carries its own npm and conflicts with Debian's npm).
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	missing="$missing nodejs npm"
fi

# gitlab-ci-local, exactly as tests/gitlab/package-lock.json pins it.
npm_tools() {
	want=$(sed -n 's/.*"gitlab-ci-local": "\([0-9.]*\)".*/\1/p' tests/gitlab/package.json)
	have=$(sed -n 's/^  "version": "\(.*\)",$/\1/p' build/npm/node_modules/gitlab-ci-local/package.json 2>/dev/null || true)
	if [ -n "$want" ] && [ "$have" = "$want" ] && [ -x build/npm/node_modules/.bin/gitlab-ci-local ]; then
		echo "install-deps: gitlab-ci-local $have present (build/npm)"
		return 0
	fi
	echo "install-deps: gitlab-ci-local $want into build/npm (npm ci)"
	mkdir -p build/npm
	cp tests/gitlab/package.json tests/gitlab/package-lock.json build/npm/
	npm ci --prefix build/npm --no-audit --no-fund --loglevel=error
}

if [ -z "$missing" ]; then
	echo "install-deps: all packages present"
	npm_tools
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
npm_tools
