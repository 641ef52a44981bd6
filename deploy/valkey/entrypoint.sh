#!/bin/sh
# Valkey entrypoint for Empire Hall (docker-compose.yml, deploy/k8s/valkey, make run, the tests).
#
# Renders the ACL rules template (users.acl.template) into the ACL file valkey.conf names, with
# each user's password as "#<sha256>" (no plaintext on disk), then execs valkey-server with the
# given arguments. It refuses to start (exit 78, EX_CONFIG) when a password is missing, is a
# placeholder (change-me..., placeholder, example, secret, password) or is shorter than 32
# characters: a tracked file never holds a working password and a copy-pasted example never
# goes live.
#
# A user's password comes from the environment variable VALKEY_PASSWORD_<USER> (upper case) or,
# if that is unset, from the file $VALKEY_SECRETS_DIR/<user> (a Kubernetes Secret or a compose
# secret mounted as files). Settings (environment):
#   VALKEY_ACL_TEMPLATE  the template           (default /etc/valkey/users.acl.template)
#   VALKEY_ACL_OUT       the rendered ACL file  (default /run/valkey/users.acl; valkey.conf's aclfile)
#   VALKEY_SECRETS_DIR   password files         (default /run/secrets/valkey)
#   VALKEY_SERVER        the server binary      (default valkey-server)
#   VALKEY_MIN_PASSWORD  shortest password      (default 32)
# The default user is "off" (nobody can sign in as it) but keeps every permission: Valkey
# replays MULTI/EXEC and script effects from the AOF as the default user and re-checks their
# ACL (valkey-io/valkey#3983); a restricted default user silently drops them on restart.
set -eu

template=${VALKEY_ACL_TEMPLATE:-/etc/valkey/users.acl.template}
out=${VALKEY_ACL_OUT:-/run/valkey/users.acl}
secrets_dir=${VALKEY_SECRETS_DIR:-/run/secrets/valkey}
server=${VALKEY_SERVER:-valkey-server}
min=${VALKEY_MIN_PASSWORD:-32}

fail() {
    echo "empire-valkey: $*" >&2
    exit 78
}

[ -r "$template" ] || fail "no ACL template at $template"

password_of() {  # $1 = user name
    var="VALKEY_PASSWORD_$(printf '%s' "$1" | tr '[:lower:]-' '[:upper:]_')"
    eval "value=\${$var:-}"
    if [ -z "$value" ] && [ -r "$secrets_dir/$1" ]; then
        value=$(cat "$secrets_dir/$1")
    fi
    [ -n "$value" ] || fail "no password for Valkey user '$1' (set $var or $secrets_dir/$1)"
    lower=$(printf '%s' "$value" | tr '[:upper:]' '[:lower:]')
    case "$lower" in
        *change-me* | *changeme* | *placeholder* | example* | secret | password*)
            fail "the password of Valkey user '$1' is a placeholder: generate one (openssl rand -hex 32)" ;;
    esac
    [ "${#value}" -ge "$min" ] || fail "the password of Valkey user '$1' is shorter than $min characters"
    case "$value" in
        *[[:space:]]*) fail "the password of Valkey user '$1' contains white space" ;;
    esac
    printf '%s' "$value" | sha256sum | cut -d' ' -f1
}

mkdir -p "$(dirname "$out")"
tmp="$out.tmp.$$"
trap 'rm -f "$tmp"' EXIT
umask 077
: > "$tmp"
while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in
        *@PASSWORD@*)
            user=$(printf '%s\n' "$line" | awk '{print $2}')
            hash=$(password_of "$user")
            printf '%s\n' "$line" | sed "s/@PASSWORD@/#$hash/" >> "$tmp"
            ;;
        *) printf '%s\n' "$line" >> "$tmp" ;;
    esac
done < "$template"
grep -q '@PASSWORD@' "$tmp" && fail "unrendered password in $out"
mv "$tmp" "$out"
trap - EXIT

exec "$server" "$@"
