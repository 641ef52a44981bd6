"""notifier composition root: ``create_app(settings)`` wires the service (nothing runs at
import; ``python -m services.notifier`` calls it): the TURNS consumer (group notifier), the
due-queue loop that sends, and the request server the gateway asks on ``notify:rpc``."""

from __future__ import annotations

from faststream import FastStream

from services.lobby.rpc import RpcServer
from services.notifier.mail import SmtpMailer
from services.notifier.prefs import Preferences
from services.notifier.service import Notifier
from services.notifier.store import RPC, NotifyStore
from services.notifier.webhook import HttpsHookSender
from shared.protocol import turns
from shared.protocol.turns import TurnsEntry
from shared.runtime.service import ServiceKit, compose
from shared.runtime.settings import Settings

GROUP_RPC = "notifier"  # the notifier's group on notify:rpc


def wire(kit: ServiceKit) -> Notifier:
    s = kit.settings
    store = NotifyStore(kit.redis, s.partitions)
    mailer = SmtpMailer(s.smtp_url, s.mail_from)
    hooks = HttpsHookSender(s.notify_allow_private)
    notifier = Notifier(s, store, mailer, hooks)
    prefs = Preferences(s, store, mailer, hooks)
    kit.consume(turns.TURNS, turns.GROUP_NOTIFIER, notifier.dispatch,
                description="whose move each game waits for -> turn mails, reminders, "
                            "webhooks (turn-based games only)",
                payload=TurnsEntry)
    server = RpcServer(s, kit.redis, prefs.handle, stream=RPC, group=GROUP_RPC)
    kit.groups.append((RPC, GROUP_RPC))
    kit.readers.append(server.run)
    kit.loops += [server.reclaim_loop, notifier.run_due]
    if not mailer.enabled:
        kit.logger.info("mail_off", reason="no EMPIRE_SMTP_URL / EMPIRE_MAIL_FROM")
    return notifier


def create_app(settings: Settings | None = None) -> FastStream:
    return compose("notifier", wire, settings)
