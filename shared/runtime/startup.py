"""Refuse to start with a configuration that must never go live: a missing, malformed or
development token key, a placeholder or short Valkey password, or plaintext to Valkey
(docs/operations.md "Secrets" and "TLS to Valkey"). Every service calls ``check`` before it
connects."""

from __future__ import annotations

import sys
import urllib.parse

from shared.runtime import tokens
from shared.runtime.settings import DEV_TOKEN_PRIVATE_KEY, Settings

MIN_SECRET = 32
PLACEHOLDERS = ("change-me", "changeme", "change_me", "placeholder", "example", "replace-me")


def weak(secret: str) -> str | None:
    """Why a secret must not go live, or None."""
    lowered = secret.lower()
    if any(p in lowered for p in PLACEHOLDERS):
        return "is a placeholder"
    if len(secret) < MIN_SECRET:
        return f"is shorter than {MIN_SECRET} characters"
    return None


def token_key_problems(settings: Settings, signs: bool) -> list[str]:
    """What is wrong with the token keys of a service that signs (the lobby) or only checks
    (the gateway) player tokens. Development (EMPIRE_DEV=1) accepts the development key."""
    out = []
    for name, value in (("EMPIRE_TOKEN_PRIVATE_KEY", settings.token_private_key),
                        ("EMPIRE_TOKEN_PUBLIC_KEYS", settings.token_public_keys)):
        if any(p in value.lower() for p in PLACEHOLDERS):
            out.append(f"{name} is a placeholder (generate a pair: sh deploy/env/"
                       "token-keys.sh or python -m shared.runtime.tokens)")
    if out:
        return out
    dev_public = tokens.public_key(DEV_TOKEN_PRIVATE_KEY)
    try:
        listed = tokens.parse_public_keys(settings.token_public_keys)
        own = tokens.public_key(settings.token_private_key) if settings.token_private_key \
            else ""
    except ValueError as exc:
        return [f"EMPIRE_TOKEN_PRIVATE_KEY or EMPIRE_TOKEN_PUBLIC_KEYS: {exc}"]
    if not signs and settings.token_private_key:
        out.append("EMPIRE_TOKEN_PRIVATE_KEY is set for a service that only checks tokens: "
                   "only the lobby holds it (give this one EMPIRE_TOKEN_PUBLIC_KEYS)")
    if settings.dev:
        return out
    hint = " (generate a pair: sh deploy/env/token-keys.sh or python -m " \
           "shared.runtime.tokens; EMPIRE_DEV=1 uses a development key)"
    if signs and not own:
        out.append("EMPIRE_TOKEN_PRIVATE_KEY is not set" + hint)
    if not signs and not listed:
        out.append("EMPIRE_TOKEN_PUBLIC_KEYS is not set" + hint)
    if own == dev_public or tokens.key_id(dev_public) in listed:
        out.append("EMPIRE_TOKEN_PRIVATE_KEY or EMPIRE_TOKEN_PUBLIC_KEYS holds the "
                   "development key" + hint)
    return out


def problems(settings: Settings, token_key: bool, signs: bool = False) -> list[str]:
    """Everything that makes this configuration unfit to start (empty: fine).
    ``token_key``: this service checks player tokens (the lobby, the gateway); ``signs``: it
    also signs them (the lobby)."""
    out = token_key_problems(settings, signs) if token_key else []
    url = urllib.parse.urlsplit(settings.redis_url)
    if url.scheme == "redis" and not settings.redis_plaintext:
        out.append("EMPIRE_REDIS_URL is plaintext redis://: use rediss:// with "
                   "EMPIRE_REDIS_CA_FILE, or set EMPIRE_REDIS_PLAINTEXT=1 for development")
    if url.scheme not in ("redis", "rediss", "unix"):
        out.append(f"EMPIRE_REDIS_URL has an unknown scheme {url.scheme!r}")
    if url.password and not settings.dev:
        why = weak(urllib.parse.unquote(url.password))
        if why:
            out.append(f"the Valkey password in EMPIRE_REDIS_URL {why}")
    if url.scheme == "rediss" and settings.redis_ca_file:
        try:
            with open(settings.redis_ca_file, "rb"):
                pass
        except OSError as exc:
            out.append(f"EMPIRE_REDIS_CA_FILE cannot be read: {exc.strerror}")
    return out


def check(settings: Settings, service: str, token_key: bool = False,
          signs: bool = False) -> None:
    """Exit with status 78 (EX_CONFIG) and one line per problem when the configuration must
    not start. Messages name the setting, never its value."""
    found = problems(settings, token_key, signs)
    if found:
        for line in found:
            print(f"{service}: refusing to start: {line}", file=sys.stderr, flush=True)
        raise SystemExit(78)


TOKEN_KEY_SERVICES = ("lobby", "gateway")  # check player tokens
TOKEN_SIGNERS = ("lobby",)  # sign them: the only holder of the private key


def refuse_unsafe(service: str) -> None:
    """The process entry's first step (services/<name>/__main__.py)."""
    from shared.runtime.settings import get_settings

    check(get_settings(), service, token_key=service in TOKEN_KEY_SERVICES,
          signs=service in TOKEN_SIGNERS)
