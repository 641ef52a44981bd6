#!/bin/sh
# Valkey readiness for compose's healthcheck and the StatefulSet's probes: signs in as the
# "health" ACL user (PING and INFO only) and passes only when PING answers PONG. A server still
# LOADING its AOF answers -LOADING, a broken ACL -NOPERM or -WRONGPASS: each fails the check, so
# no service is started against (or routed to) a Valkey that cannot serve it yet.
#   VALKEY_PASSWORD_HEALTH or $VALKEY_SECRETS_DIR/health   the health user's password
#   VALKEY_CLI (default valkey-cli), VALKEY_PORT (6379), VALKEY_HOST (127.0.0.1)
#   VALKEY_TLS=1 with VALKEY_CA_FILE: connect over TLS (the shipped valkey.conf is TLS only)
set -eu
secrets_dir=${VALKEY_SECRETS_DIR:-/run/secrets/valkey}
password=${VALKEY_PASSWORD_HEALTH:-}
if [ -z "$password" ] && [ -r "$secrets_dir/health" ]; then
    password=$(cat "$secrets_dir/health")
fi
[ -n "$password" ] || { echo "no password for the Valkey health user" >&2; exit 1; }
set -- -h "${VALKEY_HOST:-127.0.0.1}" -p "${VALKEY_PORT:-6379}"
if [ "${VALKEY_TLS:-0}" = "1" ]; then
    set -- "$@" --tls --cacert "${VALKEY_CA_FILE:-/tls/ca.crt}"
fi
reply=$(REDISCLI_AUTH="$password" "${VALKEY_CLI:-valkey-cli}" "$@" --user health --no-auth-warning ping 2>&1) || true
if [ "$reply" = "PONG" ]; then
    exit 0
fi
echo "valkey not ready: $reply" >&2
exit 1
