#!/bin/sh
# A Docker engine of Empire Hall's own, on its own socket and data root, for make images and
# make deploy-test: never the default socket, so nothing else on the machine (the test suite's
# testcontainers switch, another user's engine) sees it.
#   sh deploy/images/engine.sh install   # Debian's docker.io when dockerd is missing (root + apt)
#   sh deploy/images/engine.sh start     # start dockerd unless one answers; prints "started" if
#                                        # this call started it, "running" if one already answered
#   sh deploy/images/engine.sh stop      # stop the dockerd whose pid file is ours
# Settings: EMPIRE_DOCKER_ROOT (default /run/empire-docker: socket, pid file, exec root, log),
# EMPIRE_DOCKER_DATA (default /var/lib/empire-docker: images, volumes, build cache).
# --iptables=false: no firewall rules are touched; --bridge=none: no default bridge. Compose's
# own (user-defined) network connects the containers by name and publishes ports through
# docker-proxy; image builds use --network host.
set -eu
root=${EMPIRE_DOCKER_ROOT:-/run/empire-docker}
data=${EMPIRE_DOCKER_DATA:-/var/lib/empire-docker}
sock="unix://$root/docker.sock"

answers() {
    DOCKER_HOST=$sock docker version --format '{{.Server.Version}}' >/dev/null 2>&1
}

case "${1:-}" in
install)
    if ! command -v dockerd >/dev/null; then
        [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null \
            || { echo "engine.sh: dockerd missing and no root apt to install docker.io" >&2; exit 1; }
        # the package must not start a daemon on the default socket
        printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
        export DEBIAN_FRONTEND=noninteractive
        apt-get install -y -qq --no-install-recommends docker.io debootstrap >/dev/null 2>&1 \
            || { apt-get update -qq >/dev/null && \
                 apt-get install -y -qq --no-install-recommends docker.io debootstrap >/dev/null; }
        rm -f /usr/sbin/policy-rc.d
    fi
    if ! command -v debootstrap >/dev/null; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
    fi
    ;;
start)
    if answers; then echo running; exit 0; fi
    mkdir -p "$root/exec" "$data"
    rm -f "$root/docker.sock" "$root/docker.pid"
    # setsid: the daemon outlives this shell and is not in make's process group
    setsid dockerd -H "$sock" --data-root "$data" --exec-root "$root/exec" \
        --pidfile "$root/docker.pid" --iptables=false --ip6tables=false --bridge=none \
        >"$root/dockerd.log" 2>&1 < /dev/null &
    i=0
    until answers; do
        i=$((i + 1))
        if [ "$i" -gt 120 ]; then
            echo "engine.sh: dockerd did not answer on $sock; its log:" >&2
            tail -20 "$root/dockerd.log" >&2
            exit 1
        fi
        sleep 0.5
    done
    echo started
    ;;
stop)
    [ -r "$root/docker.pid" ] || exit 0
    pid=$(cat "$root/docker.pid")
    kill "$pid" 2>/dev/null || exit 0
    i=0
    while kill -0 "$pid" 2>/dev/null && [ "$i" -lt 60 ]; do i=$((i + 1)); sleep 0.5; done
    ;;
*)
    echo "usage: $0 install|start|stop" >&2
    exit 2
    ;;
esac
