#!/bin/sh
# Prints deploy/env/.env.example with every placeholder (a value starting with "change-me")
# replaced: the token key pair by a fresh Ed25519 pair (deploy/env/token-keys.sh: the private
# half for the lobby, its public half for the verifiers), every Valkey user's password by 64
# fresh random hex characters (openssl rand -hex 32), ready for docker compose.
#   sh deploy/env/make-env.sh > .env && chmod 600 .env
# Run it once: the Valkey passwords and the token keys must stay the same across restarts
# (a new token key signs everybody out; docs/operations.md "Rotate the token signing key").
set -eu
example=${1:-$(dirname "$0")/.env.example}
# shellcheck disable=SC2046
set -- $(sh "$(dirname "$0")/token-keys.sh")
token_private=$1 token_public=$2
while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in
        EMPIRE_TOKEN_PRIVATE_KEY=change-me*) printf 'EMPIRE_TOKEN_PRIVATE_KEY=%s\n' "$token_private" ;;
        EMPIRE_TOKEN_PUBLIC_KEYS=change-me*) printf 'EMPIRE_TOKEN_PUBLIC_KEYS=%s\n' "$token_public" ;;
        [A-Z]*=change-me*) printf '%s=%s\n' "${line%%=*}" "$(openssl rand -hex 32)" ;;
        *) printf '%s\n' "$line" ;;
    esac
done < "$example"
