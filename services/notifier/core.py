"""The notifier's decisions, pure: which "your turn" messages a TurnsChanged calls for and
when, what an address or a webhook URL must look like, what a mail and a webhook say, how
links are signed and how retries back off. No I/O, no clock: the shell passes ``now``.

What a message may carry is fixed here and nowhere else: the game's id and title, the seat,
the player's own name, times and links. A TurnsChanged carries nothing more (shared/protocol/
turns.py), and nothing here reads a game's state, view or log, so no hand, sealed choice or
nonce can reach a mail, a webhook or a log line.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import re
import time
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import urlsplit

from shared.protocol.turns import TurnsChanged

Kind = Literal["turn", "remind", "verify"]
Channel = Literal["mail", "hook"]
KINDS: tuple[Kind, ...] = ("turn", "remind", "verify")
CHANNELS: tuple[Channel, ...] = ("mail", "hook")

HOUR_MS = 3_600_000
DAY_MS = 24 * HOUR_MS
REMIND_SHARE = 0.2  # the reminder goes when this share of the clock is left, or 1 h if sooner
EMAIL_MAX = 254
WEBHOOK_URL_MAX = 2048
RETRY_MAX_S = 6 * 3600.0


# refusals a retry cannot change (a host that did not resolve may resolve later)
FINAL = frozenset({"notify/bad_webhook", "notify/webhook_private"})


class NotifyError(Exception):
    """A refusal with its code (shared/protocol/errors.py ``notify/*``)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


# -- due-queue members -----------------------------------------------------------------------

@dataclass(frozen=True)
class Job:
    """One message to send: ``key`` is the game (or, for a verification, the player) that
    places it in a due-queue partition; ``since`` the wait it belongs to (its ``since_ms``; a
    verification: ``token_ref`` of its link's token)."""

    key: str
    kind: Kind
    player: str
    since: str
    channel: Channel

    def member(self) -> str:
        return "|".join((self.key, self.kind, self.player, self.since, self.channel))

    def marker(self) -> str:
        """What the sent-marker is named after: one message per (player, game, wait, kind,
        channel)."""
        return ":".join((self.key, self.since, self.kind, self.channel))


def token_ref(token: str) -> str:
    """What a verification job names its link's token by: a digest, so the due-queue (and a
    log line naming a due member) never holds the token itself."""
    return hashlib.sha256(token.encode()).hexdigest()[:24]


def parse_member(member: str) -> Job | None:
    parts = member.split("|")
    if len(parts) != 5 or parts[1] not in KINDS or parts[4] not in CHANNELS:
        return None
    key, kind, player, since, channel = parts
    return Job(key, kind, player, since, channel)  # type: ignore[arg-type]


# -- what a TurnsChanged calls for -----------------------------------------------------------

@dataclass(frozen=True)
class Wait:
    player: str
    seat: int
    since_ms: int
    deadline_ms: int | None


@dataclass
class Plan:
    """The due-queue changes for one TurnsChanged: members to arm (keep an armed one's time)
    and members of waits that ended, to drop."""

    arm: dict[str, int] = field(default_factory=dict)
    drop: list[str] = field(default_factory=list)


def waits_of(msg: TurnsChanged) -> list[Wait]:
    """The waits a turn-based game has; none for a real-time or ended one."""
    if msg.pace != "turn-based" or msg.ended:
        return []
    return [Wait(w.player_id, w.seat, w.since_ms, w.deadline_ms) for w in msg.waiting]


def without_seats(waits: list[Wait], seats: set[int]) -> list[Wait]:
    """The waits of seats not in ``seats`` (a sealed round's seats that committed)."""
    return [w for w in waits if w.seat not in seats]


def committed_kept_ms(deadlines: list[int], now_ms: int) -> int:
    """How long a sealed round's committed seats are kept: while the round can be open (its
    latest deadline) plus a day, at least a day."""
    return max(DAY_MS, max(deadlines, default=0) - now_ms + DAY_MS)


def reminder_at(since_ms: int, deadline_ms: int | None) -> int | None:
    """When the reminder goes: when 20% of the move's time is left, or 1 h if that is sooner
    (the later of the two moments), so it never comes with the turn itself on a long clock and
    still comes on a short one. None without a deadline."""
    if deadline_ms is None or deadline_ms <= since_ms:
        return None
    left = min(int((deadline_ms - since_ms) * REMIND_SHARE), HOUR_MS)
    return deadline_ms - left


def plan(game_id: str, old: list[Wait], new: list[Wait], channels: dict[str, list[Channel]],
         delay_ms: int) -> Plan:
    """Arm the turn message (``delay_ms`` after the wait began) and the reminder for each
    channel a waiting player has; drop those of the waits in ``old`` that are no longer."""
    out = Plan()
    current = {(w.player, w.since_ms) for w in new}
    for w in new:
        turn_due = w.since_ms + delay_ms
        remind_due = reminder_at(w.since_ms, w.deadline_ms)
        for ch in channels.get(w.player, []):
            out.arm[Job(game_id, "turn", w.player, str(w.since_ms), ch).member()] = turn_due
            if remind_due is not None and remind_due > turn_due:
                out.arm[Job(game_id, "remind", w.player, str(w.since_ms), ch).member()] = \
                    remind_due
    for w in old:
        if (w.player, w.since_ms) not in current:
            for kind in ("turn", "remind"):
                for ch in CHANNELS:
                    out.drop.append(Job(game_id, kind, w.player, str(w.since_ms), ch).member())
    return out


def channels_of(prefs: dict[str, str], mail_on: bool) -> list[Channel]:
    """Where a player's turn messages go: mail only to a confirmed address with turn mails
    on (an unconfirmed one gets nothing but its verification mail), and their webhook."""
    out: list[Channel] = []
    email = prefs.get("email", "")
    if mail_on and email and prefs.get("verified") == email and \
            prefs.get("email_turns", "1") == "1":
        out.append("mail")
    if prefs.get("hook_url"):
        out.append("hook")
    return out


# -- addresses and URLs ----------------------------------------------------------------------

_LOCAL = re.compile(r"^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]{1,64}$")
_LABEL = re.compile(r"^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$")


def check_email(raw: object) -> str:
    """One plain address (``local@domain.tld``), or notify/bad_email: no spaces, quotes,
    commas, angle brackets or control characters, so it can never add a header or a second
    recipient to a mail."""
    if not isinstance(raw, str) or not raw or len(raw) > EMAIL_MAX:
        raise NotifyError("notify/bad_email", "an email address of at most 254 characters")
    local, at, domain = raw.rpartition("@")
    labels = domain.split(".")
    if (not at or not _LOCAL.fullmatch(local) or "|" in local or ".." in local
            or local.startswith(".") or local.endswith(".") or len(labels) < 2
            or not all(_LABEL.fullmatch(label) for label in labels)):
        raise NotifyError("notify/bad_email", "not one plain email address")
    return raw


@dataclass(frozen=True)
class HookUrl:
    url: str
    scheme: str
    host: str
    port: int
    target: str  # path and query


def check_webhook_url(raw: object, allow_private: bool) -> HookUrl:
    """An https URL without credentials (http too when ``allow_private``: development), or
    notify/bad_webhook. Where the host resolves to is checked by ``addresses_allowed``."""
    if not isinstance(raw, str) or not raw or len(raw) > WEBHOOK_URL_MAX:
        raise NotifyError("notify/bad_webhook", "a webhook URL of at most 2048 characters")
    if any(ord(c) < 0x21 or ord(c) == 0x7F for c in raw):
        raise NotifyError("notify/bad_webhook", "spaces or control characters in the URL")
    try:
        parts = urlsplit(raw)
        port = parts.port
    except ValueError as exc:
        raise NotifyError("notify/bad_webhook", "not a URL") from exc
    allowed = ("https", "http") if allow_private else ("https",)
    if parts.scheme not in allowed:
        raise NotifyError("notify/bad_webhook", "the webhook URL must be https")
    if parts.username is not None or parts.password is not None or not parts.hostname:
        raise NotifyError("notify/bad_webhook", "a host and no credentials in the URL")
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return HookUrl(raw, parts.scheme, parts.hostname,
                   port or (443 if parts.scheme == "https" else 80), target)


def literal_address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


def address_allowed(addr: str, allow_private: bool) -> bool:
    """A public unicast address: not loopback, private, link-local, shared, reserved,
    multicast or unspecified (an IPv4 address inside IPv6 is judged as itself)."""
    if allow_private:
        return True
    try:
        ip = ipaddress.ip_address(addr.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


def addresses_allowed(addrs: list[str], allow_private: bool) -> None:
    """Every address the host resolves to must be allowed (a name with one public and one
    loopback address is refused), else notify/webhook_private."""
    if not addrs:
        raise NotifyError("notify/webhook_unresolvable", "the webhook's host does not resolve")
    if not all(address_allowed(a, allow_private) for a in addrs):
        raise NotifyError("notify/webhook_private",
                          "The webhook's host resolves to a loopback, private or link-local "
                          "address: give a public https address.")


# -- links and signatures --------------------------------------------------------------------

def _mac(key: bytes, *parts: str) -> str:
    return hmac.new(key, "\x1f".join(parts).encode(), hashlib.sha256).hexdigest()


def unsubscribe_token(key: bytes, player: str) -> str:
    """``<player>.<mac>``: the one-click unsubscribe link's token, signed with the notifier's
    own key (no state to look up, valid as long as the key)."""
    return f"{player}.{_mac(key, 'unsubscribe', player)[:40]}"


def unsubscribed_player(key: bytes, token: str) -> str:
    """The player a genuine unsubscribe token names, else notify/bad_token."""
    player = token.rpartition(".")[0]
    if not player or not hmac.compare_digest(unsubscribe_token(key, player), token):
        raise NotifyError("notify/bad_token", "not a valid unsubscribe link")
    return player


def hook_signature(secret: str, timestamp_ms: int, body: bytes) -> str:
    """``sha256=<hex>`` of HMAC-SHA256(secret, "<timestamp>." + body): the receiver checks it
    and the timestamp's age, so a captured call cannot be replayed later."""
    mac = hmac.new(secret.encode(), str(timestamp_ms).encode() + b"." + body, hashlib.sha256)
    return "sha256=" + mac.hexdigest()


def retry_after_s(tries: int, first_s: float) -> float:
    """Exponential back-off: ``first_s`` after the first failure, doubled each time, at most
    six hours."""
    return float(min(first_s * (2 ** max(0, tries - 1)), RETRY_MAX_S))


def day_of(now_ms: int) -> str:
    """The UTC day a mail counts against the daily cap."""
    return time.strftime("%Y%m%d", time.gmtime(now_ms / 1000))


def utc(ms: int) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(ms / 1000))


# -- what a message says ---------------------------------------------------------------------

@dataclass(frozen=True)
class Turn:
    """Everything a turn message may say (and nothing else exists to say)."""

    kind: Kind
    game_id: str
    title: str
    seat: int
    name: str  # the recipient's own name
    since_ms: int
    deadline_ms: int | None
    link: str


def game_link(base_url: str, game_id: str) -> str:
    return f"{base_url.rstrip('/')}/#/game/{game_id}"


def turn_subject(t: Turn) -> str:
    if t.kind == "remind":
        return f"Reminder: your move in {t.title} (game {t.game_id})"
    return f"Your turn in {t.title} (game {t.game_id})"


def turn_text(t: Turn) -> str:
    lines = [f"Hello {t.name}," if t.name else "Hello,", ""]
    if t.kind == "remind":
        lines.append(f"{t.title} (game {t.game_id}) is still waiting for your move, seat "
                     f"{t.seat}.")
    else:
        lines.append(f"It is your turn in {t.title} (game {t.game_id}), seat {t.seat}.")
    lines.append(f"Waiting since {utc(t.since_ms)}.")
    if t.deadline_ms is not None:
        lines.append(f"Your time for this move runs out at {utc(t.deadline_ms)}.")
    lines += ["", f"Play: {t.link}"]
    return "\n".join(lines)


def hook_payload(t: Turn) -> dict[str, object]:
    """A chat-style incoming webhook's body: ``text`` for chat tools, and the same facts as
    fields for programs."""
    return {"text": f"{turn_subject(t)}: {t.link}", "event": t.kind, "game_id": t.game_id,
            "title": t.title, "seat": t.seat, "since_ms": t.since_ms,
            "deadline_ms": t.deadline_ms, "url": t.link}


def verify_text(link: str) -> str:
    return ("Someone (we hope you) asked Empire Hall to send \"your turn\" mails to this "
            "address.\n\nConfirm it: " + link + "\n\nIf it was not you, ignore this mail: "
            "nothing else will be sent to this address.")
