"""The notifier's parts over one Valkey client, as one process builds them, for the tests
(services/notifier/app.py wires the same parts): settings, store, mailer, webhook sender,
the service and the settings requests; and TurnsChanged entries as the adjudicator writes
them. Time is passed in: ``Clock.now`` is a number the test moves."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

from services.notifier.mail import SmtpMailer
from services.notifier.prefs import Preferences
from services.notifier.service import Notifier
from services.notifier.store import NotifyStore
from services.notifier.webhook import HttpsHookSender
from shared.protocol.turns import TurnsChanged, Waiting
from shared.runtime.settings import Settings
from tests.support.notify_sinks import MailSink

T0 = 1_780_000_000_000
HOUR = 3_600_000
ADDR = "ann@example.org"
PUBLIC = "https://hall.example"
# what a game's hidden information looks like in the stores: none of it may reach a message
SECRETS = ("nonce", "choice", "hand", "opening", "seed", "SECRET")


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> int:
        return self.now


class System:
    """One notifier process's parts over the shared Valkey (a new System: a restart)."""

    def __init__(self, r: Any, clock: Clock, smtp_url: str, **settings: Any) -> None:
        base = {"turn_mail_delay_s": 0, "mail_from": "hall@example.org", "public_url": PUBLIC,
                "notify_daily_cap": 20, "notify_retry_s": 30}
        self.settings = Settings(smtp_url=smtp_url, **{**base, **settings})
        self.store = NotifyStore(r)
        mailer = SmtpMailer(self.settings.smtp_url, self.settings.mail_from)
        sender = HttpsHookSender(self.settings.notify_allow_private)
        self.notifier = Notifier(self.settings, self.store, mailer, sender, clock)
        self.prefs = Preferences(self.settings, self.store, mailer, sender, clock)

    async def put(self, player: str = "p-ann", **fields: Any) -> dict[str, Any]:
        return await self.prefs.handle({"op": "notify_put", "player_id": player,
                                        "name": "ann", "fields": fields})

    async def poll(self) -> int:
        return await self.notifier.poll_due()


def turns(game_id: str, seq: int, since: int, deadline: int | None = None,
          player: str = "p-ann", pace: str = "turn-based", ended: bool = False
          ) -> dict[str, Any]:
    waiting = [] if ended else [Waiting(seat=0, player_id=player, since_ms=since,
                                        deadline_ms=deadline)]
    return TurnsChanged(game_id=game_id, game="duel", pace=pace,  # type: ignore[arg-type]
                        seq=seq, at_ms=since, players=[player, "p-bob"], waiting=waiting,
                        ended=ended).model_dump(mode="json")


async def verified(sys: System, smtp: MailSink, address: str = ADDR,
                   player: str = "p-ann") -> None:
    """Set the address and open the verification mail's link."""
    before = len(smtp.to(address))
    out = await sys.put(player, email=address)
    assert out["ok"] and out["verification_sent"] and not out["email_verified"]
    await sys.poll()
    mail = smtp.to(address)[before]
    link = next(w for w in mail.text.split() if "/verify?" in w)
    token = parse_qs(urlsplit(link).query)["token"][0]
    assert (await sys.prefs.handle({"op": "notify_verify", "token": token}))["ok"]


def no_secrets(*texts: str) -> None:
    for t in texts:
        for word in SECRETS:
            assert word not in t, (word, t)
