#!/bin/sh
# One point-in-time backup of Valkey: an RDB snapshot streamed over the replication protocol
# (valkey-cli --rdb) by the "backup" ACL user, which may only PING, INFO, SYNC/PSYNC and
# REPLCONF: it cannot read or change a key. The Kubernetes CronJob (deploy/k8s/valkey/backup.yaml)
# and the compose profile "backup" run this script; docs/operations.md "Back up Valkey" has the
# restore procedure.
#
# The snapshot is written to a temporary name, checked (an RDB starts with "REDIS"), then renamed
# to $BACKUP_DIR/dump-<UTC time>.rdb with a .sha256 beside it; only the newest $BACKUP_KEEP
# snapshots are kept. Settings (environment):
#   VALKEY_PASSWORD_BACKUP or $VALKEY_SECRETS_DIR/backup   the backup user's password
#   VALKEY_HOST (default valkey), VALKEY_PORT (6379), VALKEY_CLI (valkey-cli)
#   VALKEY_TLS=1 with VALKEY_CA_FILE (default /tls/ca.crt): connect over TLS
#   BACKUP_DIR (default /backups), BACKUP_KEEP (default 14)
set -eu
secrets_dir=${VALKEY_SECRETS_DIR:-/run/secrets/valkey}
dir=${BACKUP_DIR:-/backups}
keep=${BACKUP_KEEP:-14}
password=${VALKEY_PASSWORD_BACKUP:-}
if [ -z "$password" ] && [ -r "$secrets_dir/backup" ]; then
    password=$(cat "$secrets_dir/backup")
fi
[ -n "$password" ] || { echo "valkey-backup: no password for the Valkey backup user" >&2; exit 78; }
case "$keep" in
    '' | *[!0-9]* | 0) echo "valkey-backup: BACKUP_KEEP must be a positive number" >&2; exit 78 ;;
esac
set -- -h "${VALKEY_HOST:-valkey}" -p "${VALKEY_PORT:-6379}" --user backup --no-auth-warning
if [ "${VALKEY_TLS:-0}" = "1" ]; then
    set -- "$@" --tls --cacert "${VALKEY_CA_FILE:-/tls/ca.crt}"
fi
mkdir -p "$dir"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
name="dump-$stamp"
[ -e "$dir/$name.rdb" ] && name="$name-$$"
tmp="$dir/.$name.rdb.partial"
trap 'rm -f "$tmp"' EXIT
REDISCLI_AUTH="$password" "${VALKEY_CLI:-valkey-cli}" "$@" --rdb "$tmp" >&2
[ "$(head -c 5 "$tmp")" = "REDIS" ] || { echo "valkey-backup: $tmp is not an RDB file" >&2; exit 1; }
mv "$tmp" "$dir/$name.rdb"
trap - EXIT
(cd "$dir" && sha256sum "$name.rdb" > "$name.rdb.sha256")
echo "valkey-backup: wrote $dir/$name.rdb ($(wc -c < "$dir/$name.rdb") bytes)"
# retention: the newest $keep snapshots stay (names sort by time)
ls -1 "$dir" | grep -E '^dump-[0-9TZ-]+\.rdb$' | sort -r | awk -v keep="$keep" 'NR > keep' |
    while IFS= read -r old; do
        rm -f "$dir/$old" "$dir/$old.sha256"
        echo "valkey-backup: removed $dir/$old (retention: $keep)"
    done
