#!/bin/bash
# Install what building and testing mempower needs on Debian 12, unless it is
# all there already.  Runs apt-get as root, or through sudo when not root.
# Extra packages can be named as arguments (scripts/fuzz.sh adds clang's).
set -euo pipefail

PKGS=(cmake ninja-build gcc g++ pkg-config libjansson-dev valgrind "$@")

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends "${missing[@]}"
