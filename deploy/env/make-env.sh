#!/bin/sh
# Prints deploy/env/.env.example with every placeholder (a value starting with "change-me")
# replaced by 64 fresh random hex characters (openssl rand -hex 32): the token signing key and
# every Valkey user's password, ready for docker compose.
#   sh deploy/env/make-env.sh > .env && chmod 600 .env
# Run it once: the Valkey passwords and the token key must stay the same across restarts
# (a new token key signs everybody out; docs/operations.md "Rotate the token signing key").
set -eu
example=${1:-$(dirname "$0")/.env.example}
while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in
        [A-Z]*=change-me*) printf '%s=%s\n' "${line%%=*}" "$(openssl rand -hex 32)" ;;
        *) printf '%s\n' "$line" ;;
    esac
done < "$example"
