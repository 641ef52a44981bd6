#!/bin/sh
# Prints a fresh Ed25519 token key pair as two hex words, "<private> <public>" (64 hex digits
# each): the private half is EMPIRE_TOKEN_PRIVATE_KEY (the lobby only), the public half goes in
# EMPIRE_TOKEN_PUBLIC_KEYS (every verifier). openssl only (1.1.1+); the same pair as
#   python -m shared.runtime.tokens
# Used by deploy/env/make-env.sh and deploy/k8s/overlays/dev/secrets.sh.
set -eu
pem=$(openssl genpkey -algorithm ed25519)
hex() { od -An -tx1 -v | tr -d ' \n'; }
# PKCS#8 DER of an Ed25519 key ends with the 32-byte seed; SPKI DER with the 32-byte public key
private=$(printf '%s\n' "$pem" | openssl pkey -outform DER | tail -c 32 | hex)
public=$(printf '%s\n' "$pem" | openssl pkey -pubout -outform DER | tail -c 32 | hex)
printf '%s %s\n' "$private" "$public"
