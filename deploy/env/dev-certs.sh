#!/bin/sh
# Development TLS for Valkey: a throw-away CA and a server certificate signed by it, for
# docker-compose.yml (make certs) and the dev overlay (deploy/k8s/overlays/dev/secrets.sh).
#   sh deploy/env/dev-certs.sh [DIR]       # default deploy/env/tls (gitignored)
# Writes DIR/ca.crt (the CA bundle the services check Valkey against: EMPIRE_REDIS_CA_FILE),
# DIR/tls.crt and DIR/tls.key (Valkey's certificate, valid for the compose and Kubernetes names
# of the Valkey service and for localhost). The CA's key is not kept: nothing else can be signed
# with it. The key is readable by every local user (mode 0644) because Valkey runs as uid 999 in
# its container and reads it through a bind mount: development only. Production brings its own
# certificates (cert-manager, your PKI): docs/operations.md "TLS to Valkey".
# VALKEY_TLS_NAMESPACE (default empire-dev) adds that namespace's service names; VALKEY_TLS_DAYS
# (default 365) sets the validity. Needs openssl.
set -eu
dir=${1:-deploy/env/tls}
ns=${VALKEY_TLS_NAMESPACE:-empire-dev}
days=${VALKEY_TLS_DAYS:-365}
mkdir -p "$dir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
umask 022
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -sha256 \
    -days "$days" -subj "/CN=Empire Hall development CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -keyout "$work/ca.key" -out "$work/ca.crt" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -sha256 \
    -subj "/CN=valkey" -keyout "$work/tls.key" -out "$work/tls.csr" 2>/dev/null
cat > "$work/ext" <<EXT
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=DNS:valkey,DNS:localhost,DNS:empire-valkey,DNS:empire-valkey.$ns,DNS:empire-valkey.$ns.svc,DNS:empire-valkey.$ns.svc.cluster.local,DNS:*.empire-valkey.$ns.svc.cluster.local,DNS:empire-valkey-0.empire-valkey,IP:127.0.0.1
EXT
openssl x509 -req -sha256 -days "$days" -in "$work/tls.csr" -CA "$work/ca.crt" \
    -CAkey "$work/ca.key" -CAcreateserial -extfile "$work/ext" -out "$work/tls.crt" 2>/dev/null
cp "$work/ca.crt" "$work/tls.crt" "$work/tls.key" "$dir/"
chmod 0644 "$dir/ca.crt" "$dir/tls.crt" "$dir/tls.key"
echo "wrote $dir/ca.crt, $dir/tls.crt, $dir/tls.key (development only)" >&2
