#!/usr/bin/env bash
# Refresh the terminal emulator the web page uses (xterm.js and its fit, unicode11 and webgl addons) from the npm
# registry into server/web/static/vendor/, with each package's licence, and record what was taken (versions, the
# registry's integrity, each file's sha256) in server/web/static/vendor/VERSIONS.  Users need no build step: the
# files are served as they are.
#
#   tools/vendor-xterm.sh                  # the versions pinned below
#   tools/vendor-xterm.sh 6.0.0 0.11.0 0.9.0 0.19.0   # xterm, fit, unicode11, webgl
#
# Needs npm (npm pack only: nothing is installed, no script of a package runs).
set -euo pipefail
cd "$(dirname "$0")/.."
XTERM=${1:-6.0.0}
FIT=${2:-0.11.0}
UNICODE11=${3:-0.9.0}
WEBGL=${4:-0.19.0}
DEST=server/web/static/vendor
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

take() {  # PACKAGE VERSION NAME FILE...: unpack the package, copy FILE... and its LICENSE as NAME.*
    local package=$1 version=$2 name=$3
    shift 3
    (cd "$work" && npm pack --silent "$package@$version" >/dev/null)
    local tarball
    tarball=$(ls "$work"/*.tgz)
    mkdir -p "$work/$name"
    tar xzf "$tarball" -C "$work/$name"
    rm "$tarball"
    local integrity
    integrity=$(npm view "$package@$version" dist.integrity)
    for file in "$@"; do
        local out="$DEST/$(basename "$file")"
        # The source map is not vendored: drop the comment that points at it.
        sed '/^\/\/# sourceMappingURL=/d' "$work/$name/package/$file" > "$out"
    done
    cp "$work/$name/package/LICENSE" "$DEST/$name.LICENSE"
    printf '%s %s %s\n' "$package" "$version" "$integrity" >> "$DEST/VERSIONS.new"
}

mkdir -p "$DEST"
rm -f "$DEST/VERSIONS.new"
take @xterm/xterm "$XTERM" xterm lib/xterm.js css/xterm.css
take @xterm/addon-fit "$FIT" addon-fit lib/addon-fit.js
take @xterm/addon-unicode11 "$UNICODE11" addon-unicode11 lib/addon-unicode11.js
take @xterm/addon-webgl "$WEBGL" addon-webgl lib/addon-webgl.js
{
    echo "# What tools/vendor-xterm.sh took from the npm registry: package, version, the registry's integrity;"
    echo "# then the sha256 of each vendored file (tests/web/test_assets.py checks them)."
    cat "$DEST/VERSIONS.new"
    (cd "$DEST" && sha256sum -- *.js *.css *.LICENSE)
} > "$DEST/VERSIONS"
rm "$DEST/VERSIONS.new"
echo "vendored into $DEST:"
cat "$DEST/VERSIONS"
