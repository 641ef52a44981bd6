#!/bin/bash
# make images: every image docker-compose.yml runs, built with no image registry, from Debian
# packages and PyPI only (docs/operations.md "Images without a registry"):
#   empire-python:3.11-slim-bookworm        debootstrap --variant=minbase bookworm + python3
#                                            (docker import; skipped when the image exists)
#   empire-python-build:3.11-slim-bookworm  that + python3-venv + the host's CA bundle (the
#                                            service image's build stage only)
#   empire-hall:latest                      deploy/docker/Dockerfile on those two
#   empire-valkey:8.0                       deploy/images/valkey.Dockerfile (valkey, backup)
#   empire-proxy:1.22                       deploy/images/proxy.Dockerfile (proxy)
# deploy/images/compose.offline.yml names the last two for compose. The engine is our own
# (deploy/images/engine.sh): DOCKER_HOST is set for these commands only. The legacy builder
# (no buildx here) caches each layer: the dependency layer is rebuilt only when uv.lock or
# pyproject.toml change. Prints each image's size; fails when the service image is over
# EMPIRE_IMAGE_MAX_MB (250).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=${EMPIRE_DOCKER_ROOT:-/run/empire-docker}
export DOCKER_HOST=${EMPIRE_DOCKER_HOST:-unix://$root/docker.sock}
export DOCKER_BUILDKIT=0
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
max_mb=${EMPIRE_IMAGE_MAX_MB:-250}
BASE=empire-python:3.11-slim-bookworm
BUILD=empire-python-build:3.11-slim-bookworm

t0=$(date +%s)
step() { echo "images: $1 ($(( $(date +%s) - t0 )) s)"; }
has() { docker image inspect "$1" >/dev/null 2>&1; }
# the legacy builder's deprecation notice on every build is noise here: it is the builder
# this engine has (no buildx); anything else on stderr still shows
build() {
    docker build -q --network host "$@" 2>&1 >/dev/null \
        | { grep -v -E '^(DEPRECATED: The legacy builder|  +BuildKit is currently disabled|  +environment-variable|$)' >&2 || true; }
    return "${PIPESTATUS[0]}"
}

if ! has "$BASE"; then
    work=$(mktemp -d /var/tmp/empire-rootfs.XXXXXX)
    trap 'rm -rf "$work"' EXIT
    debootstrap --variant=minbase --include=python3 bookworm "$work/root" "$mirror" \
        > "$work/debootstrap.log" 2>&1 || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
    # what an image never needs: package lists and caches, documentation, man pages, locales
    rm -rf "$work"/root/var/lib/apt/lists/* "$work"/root/var/cache/apt/*.bin \
        "$work"/root/var/cache/apt/archives/*.deb \
        "$work"/root/usr/share/doc/* "$work"/root/usr/share/man/* "$work"/root/usr/share/info/* \
        "$work"/root/var/log/*.log "$work"/root/var/cache/debconf/*-old
    find "$work/root/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name locale.alias \
        -exec rm -rf {} +
    tar -C "$work/root" --numeric-owner -c . | docker import \
        -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8' \
        -c 'CMD ["python3"]' - "$BASE" >/dev/null
    rm -rf "$work"
    trap - EXIT
    step "base $BASE imported from debootstrap"
else
    step "base $BASE exists (debootstrap skipped)"
fi

ctx=$(mktemp -d)
trap 'rm -rf "$ctx"' EXIT
cp /etc/ssl/certs/ca-certificates.crt "$ctx/ca-bundle.crt"
build --build-arg BASE_IMAGE="$BASE" -f deploy/images/build-base.Dockerfile -t "$BUILD" "$ctx"
step "build base $BUILD"

# the service image's context: exactly the paths deploy/docker/Dockerfile.dockerignore lets
# through (its "!" lines, read here so the two cannot differ; the legacy builder reads only a
# .dockerignore at the context's root), as a tar on stdin
paths=$(sed -n 's#^!\(.*\)$#\1#p' deploy/docker/Dockerfile.dockerignore | sed 's#/\*\*$##')
# shellcheck disable=SC2086
git ls-files -z --cached --others --exclude-standard -- $paths deploy/docker/Dockerfile \
    | grep -z -v -E '(__pycache__|\.pyc$)' \
    | tar --null -T - -c \
    | build -f deploy/docker/Dockerfile \
        --build-arg PYTHON_IMAGE="$BASE" --build-arg BUILD_IMAGE="$BUILD" \
        -t "${EMPIRE_IMAGE:-empire-hall:latest}" -
step "service image ${EMPIRE_IMAGE:-empire-hall:latest}"

build --build-arg BASE_IMAGE="$BASE" -f deploy/images/valkey.Dockerfile -t empire-valkey:8.0 deploy/images
step "valkey image empire-valkey:8.0"
build --build-arg BASE_IMAGE="$BASE" -f deploy/images/proxy.Dockerfile -t empire-proxy:1.22 deploy/images
step "proxy image empire-proxy:1.22"

# the images these builds replaced (untagged), on this engine only
docker image prune -f >/dev/null
for image in "$BASE" "${EMPIRE_IMAGE:-empire-hall:latest}" empire-valkey:8.0 empire-proxy:1.22; do
    bytes=$(docker image inspect -f '{{.Size}}' "$image")
    printf 'images: %-40s %5d MB\n' "$image" $(( bytes / 1000000 ))
done
service=$(docker image inspect -f '{{.Size}}' "${EMPIRE_IMAGE:-empire-hall:latest}")
if [ $(( service / 1000000 )) -gt "$max_mb" ]; then
    echo "images: the service image is over $max_mb MB" >&2
    exit 1
fi
