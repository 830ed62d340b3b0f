#!/bin/sh
# Makes sure the Debian packages the build and the tests need are installed.
# As root, missing packages are installed with apt-get; otherwise the command
# to run is printed and the script fails.
set -eu

PACKAGES="gcc make cmake pkg-config libzstd-dev libelf-dev libcapstone-dev libcmocka-dev zstd valgrind binutils"

missing=""
for pkg in $PACKAGES; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $pkg"
    fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "missing Debian packages:$missing" >&2
    echo "install them with: sudo apt-get install -y$missing" >&2
    exit 1
fi
echo "installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
