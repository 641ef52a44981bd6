"""Refuse to start with a configuration that must never go live: a placeholder or short token
key or Valkey password, the development key, or plaintext to Valkey (docs/operations.md
"Secrets" and "TLS to Valkey"). Every service calls ``check`` before it connects."""

from __future__ import annotations

import sys
import urllib.parse

from shared.runtime.settings import DEV_SECRET, Settings

MIN_SECRET = 32
PLACEHOLDERS = ("change-me", "changeme", "change_me", "placeholder", "example", "replace-me")


def weak(secret: str) -> str | None:
    """Why a secret must not go live, or None."""
    lowered = secret.lower()
    if secret == DEV_SECRET:
        return "is the development key"
    if any(p in lowered for p in PLACEHOLDERS):
        return "is a placeholder"
    if len(secret) < MIN_SECRET:
        return f"is shorter than {MIN_SECRET} characters"
    return None


def problems(settings: Settings, token_key: bool) -> list[str]:
    """Everything that makes this configuration unfit to start (empty: fine).
    ``token_key``: this service signs or checks player tokens (the lobby, the gateway)."""
    out = []
    if token_key and not settings.dev:
        for name, value in (("EMPIRE_SECRET", settings.secret),
                            ("EMPIRE_SECRET_PREVIOUS", settings.secret_previous)):
            why = weak(value) if value else None
            if why:
                out.append(f"{name} {why} (generate one: openssl rand -hex 32; "
                           "EMPIRE_DEV=1 accepts it for development)")
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


def check(settings: Settings, service: str, token_key: bool = False) -> None:
    """Exit with status 78 (EX_CONFIG) and one line per problem when the configuration must
    not start. Messages name the setting, never its value."""
    found = problems(settings, token_key)
    if found:
        for line in found:
            print(f"{service}: refusing to start: {line}", file=sys.stderr, flush=True)
        raise SystemExit(78)


TOKEN_KEY_SERVICES = ("lobby", "gateway")  # sign / check player tokens


def refuse_unsafe(service: str) -> None:
    """The process entry's first step (services/<name>/__main__.py)."""
    from shared.runtime.settings import get_settings

    check(get_settings(), service, token_key=service in TOKEN_KEY_SERVICES)
