#!/bin/sh
# Prints the Secrets and the ConfigMap the dev overlay needs but never keeps in git, with fresh
# random values, for `kubectl apply -f -`:
#   sh deploy/k8s/overlays/dev/secrets.sh [NAMESPACE] | kubectl apply -f -     # once
#   Secret empire-valkey-passwords  one key per Valkey ACL user of users.acl.template (64 hex)
#   Secret empire-secrets           token-signing-key and redis-url-<service> (rediss://, that
#                                   service's own user and password, host empire-valkey)
#   Secret empire-valkey-tls        Valkey's development certificate (deploy/env/dev-certs.sh)
#   ConfigMap empire-redis-ca       the CA bundle the services check Valkey against
# Run it once per namespace: running it again makes new passwords and a new token key (every
# player signed out) and needs `kubectl rollout restart` of Valkey and every Deployment.
# Production creates the same objects from its secret store (docs/operations.md "Secrets").
set -eu
ns=${1:-empire-dev}
here=$(dirname "$0")
template=${VALKEY_ACL_TEMPLATE:-$here/../../../valkey/users.acl.template}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
VALKEY_TLS_NAMESPACE=$ns sh "$here/../../../env/dev-certs.sh" "$work/tls" 2>/dev/null

b64() { base64 < "$1" | tr -d '\n'; }
b64s() { printf '%s' "$1" | base64 | tr -d '\n'; }
labels='  labels: {app.kubernetes.io/name: empire-hall, app.kubernetes.io/part-of: empire-hall}'

printf 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: empire-valkey-passwords\n  namespace: %s\n%s\ntype: Opaque\ndata:\n' "$ns" "$labels"
for user in $(awk '$1 == "user" && / @PASSWORD@ / {print $2}' "$template"); do
    openssl rand -hex 32 | tr -d '\n' > "$work/pw-$user"
    printf '  %s: %s\n' "$user" "$(b64 "$work/pw-$user")"
done

printf -- '---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: empire-secrets\n  namespace: %s\n%s\ntype: Opaque\ndata:\n' "$ns" "$labels"
printf '  token-signing-key: %s\n' "$(b64s "$(openssl rand -hex 32)")"
for svc in adjudicator escrow dealer scoring lobby bots notifier gateway; do
    [ -r "$work/pw-$svc" ] || { echo "secrets.sh: no ACL user $svc in $template" >&2; exit 1; }
    printf '  redis-url-%s: %s\n' "$svc" "$(b64s "rediss://$svc:$(cat "$work/pw-$svc")@empire-valkey:6379/0")"
done

printf -- '---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: empire-valkey-tls\n  namespace: %s\n%s\ntype: kubernetes.io/tls\ndata:\n' "$ns" "$labels"
printf '  tls.crt: %s\n  tls.key: %s\n  ca.crt: %s\n' "$(b64 "$work/tls/tls.crt")" "$(b64 "$work/tls/tls.key")" "$(b64 "$work/tls/ca.crt")"

printf -- '---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: empire-redis-ca\n  namespace: %s\n%s\ndata:\n  ca.crt: |\n' "$ns" "$labels"
sed 's/^/    /' "$work/tls/ca.crt"
