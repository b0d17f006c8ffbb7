#!/usr/bin/env bash
# Build the mcpscope OCI image (deploy/Containerfile) from a release binary already built by
# `cargo ship`: stage the context the Containerfile expects, then `buildah bud` (or `podman
# build` where buildah is missing) with the version, source and revision as labels and as OCI
# manifest annotations.
#
#   deploy/build-image.sh [TAG]        # default TAG: localhost/mcpscope:<version in Cargo.toml>
#
# Environment: MCPSCOPE_BIN (default target/release/mcpscope, must be statically linked: the
# image has no loader and no libc), MCPSCOPE_CA_BUNDLE (default the build host's
# /etc/ssl/certs/ca-certificates.crt: the system roots the binary's TLS client reads).
#
# The image's creation time is the last commit's, and every instruction lands in one layer
# (buildah's default without --layers).
set -euo pipefail
cd "$(dirname "$0")/.."

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n1)
source_url=$(sed -n 's/^repository = "\(.*\)"$/\1/p' Cargo.toml | head -n1)
[ -n "$version" ] && [ -n "$source_url" ] || { echo "no version or repository in Cargo.toml"; exit 1; }
tag="${1:-localhost/mcpscope:$version}"
bin="${MCPSCOPE_BIN:-${CARGO_TARGET_DIR:-$PWD/target}/release/mcpscope}"
bundle="${MCPSCOPE_CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}"
revision=$(git rev-parse HEAD 2>/dev/null || echo unknown)
epoch=$(git log -1 --format=%ct 2>/dev/null || echo 0)

[ -x "$bin" ] || { echo "$bin is missing: build it with \`cargo ship\` first"; exit 1; }
if readelf -l "$bin" | grep -q INTERP; then
  echo "$bin has a program interpreter: build it with \`cargo ship\` (static), not cargo build"; exit 1
fi
grep -q 'BEGIN CERTIFICATE' "$bundle" 2>/dev/null ||
  { echo "$bundle holds no certificate (Debian: apt-get install ca-certificates)"; exit 1; }

ctx=$(mktemp -d)
trap 'rm -rf "$ctx"' EXIT
cp -a deploy/rootfs "$ctx/rootfs"
find "$ctx/rootfs" -type d -exec chmod 0755 {} +
chmod 0644 "$ctx"/rootfs/etc/*
install -m 0755 "$bin" "$ctx/mcpscope"
install -m 0644 "$bundle" "$ctx/ca-certificates.crt"
# Inside rootfs/, so COPY keeps its mode (a COPY of an empty directory makes the target 0755).
mkdir -m 1777 "$ctx/rootfs/tmp"

annotations=()
for kv in "org.opencontainers.image.title=mcpscope" "org.opencontainers.image.version=$version" \
  "org.opencontainers.image.source=$source_url" "org.opencontainers.image.revision=$revision" \
  "org.opencontainers.image.licenses=Apache-2.0"; do
  annotations+=(--annotation "$kv")
done
args=(--format oci --timestamp "$epoch" -f deploy/Containerfile -t "$tag"
  --build-arg "VERSION=$version" --build-arg "SOURCE=$source_url" --build-arg "REVISION=$revision"
  "${annotations[@]}")
if command -v buildah >/dev/null; then
  buildah bud --quiet "${args[@]}" "$ctx"
else
  podman build --quiet "${args[@]}" "$ctx"
fi
echo "built $tag"
