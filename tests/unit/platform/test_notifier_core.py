"""The notifier's pure decisions (services/notifier/core.py): when the turn message and the
reminder go, which waits' messages are dropped, the address and webhook URL checks, the
address policy, signed links and back-off."""

from __future__ import annotations

import pytest

from services.notifier import core
from shared.protocol.errors import ERROR_CODES
from shared.protocol.turns import TurnsChanged, Waiting

pytestmark = pytest.mark.unit
H = core.HOUR_MS


def test_reminder_when_20_percent_or_1_hour_is_left_whichever_is_later() -> None:
    assert core.reminder_at(0, 10 * H) == 9 * H  # 20% = 2 h left; 1 h left is later
    assert core.reminder_at(0, 2 * H) == int(2 * H - 0.2 * 2 * H)  # 20% = 24 min left
    assert core.reminder_at(0, 14 * 24 * H) == 14 * 24 * H - H
    assert core.reminder_at(0, None) is None and core.reminder_at(5, 5) is None


def _msg(**kw: object) -> TurnsChanged:
    base: dict[str, object] = {"game_id": "g", "game": "duel", "pace": "turn-based", "seq": 1,
                               "at_ms": 0, "players": ["a", "b"],
                               "waiting": [Waiting(seat=0, player_id="a", since_ms=100,
                                                   deadline_ms=100 + 10 * H)]}
    return TurnsChanged.model_validate({**base, **kw})


def test_plan_arms_turn_and_reminder_per_channel_and_drops_ended_waits() -> None:
    new = core.waits_of(_msg())
    p = core.plan("g", [], new, {"a": ["mail", "hook"]}, delay_ms=300_000)
    assert p.arm == {"g|turn|a|100|mail": 300_100, "g|remind|a|100|mail": 100 + 9 * H,
                     "g|turn|a|100|hook": 300_100, "g|remind|a|100|hook": 100 + 9 * H}
    later = core.plan("g", new, [core.Wait("b", 1, 500, None)], {"b": []}, 0)
    assert later.arm == {} and "g|turn|a|100|mail" in later.drop
    assert "g|remind|a|100|hook" in later.drop
    assert core.waits_of(_msg(pace="real-time")) == []
    assert core.waits_of(_msg(ended=True)) == []


def test_no_reminder_that_would_come_before_or_with_the_turn_message() -> None:
    w = [core.Wait("a", 0, 0, 10 * 60_000)]  # a 10-minute clock, 5-minute delay
    assert "g|remind|a|0|mail" in core.plan("g", [], w, {"a": ["mail"]}, 5 * 60_000).arm
    assert "g|remind|a|0|mail" not in core.plan("g", [], w, {"a": ["mail"]}, 9 * 60_000).arm


def test_members_round_trip_and_junk_is_none() -> None:
    job = core.Job("g-1", "remind", "p-1", "123", "hook")
    assert core.parse_member(job.member()) == job
    for junk in ("", "a|b", "g|turn|p|1|sms", "g|boom|p|1|mail", "g|turn|p|1|mail|x"):
        assert core.parse_member(junk) is None


def test_only_a_confirmed_address_with_turn_mails_on_gets_mail() -> None:
    assert core.channels_of({"email": "a@b.cd"}, True) == []
    assert core.channels_of({"email": "a@b.cd", "verified": "a@b.cd"}, True) == ["mail"]
    assert core.channels_of({"email": "a@b.cd", "verified": "x@b.cd"}, True) == []
    assert core.channels_of({"email": "a@b.cd", "verified": "a@b.cd",
                             "email_turns": "0"}, True) == []
    assert core.channels_of({"email": "a@b.cd", "verified": "a@b.cd"}, False) == []
    assert core.channels_of({"hook_url": "https://x.example/h"}, False) == ["hook"]


@pytest.mark.parametrize("good", ["ann@example.org", "a.b+c@mail.example.co.uk", "x@a-b.io"])
def test_plain_addresses_pass(good: str) -> None:
    assert core.check_email(good) == good


@pytest.mark.parametrize("bad", ["a@b.c\r\nBcc: x", "a@b.c\n", "a b@c.de", "a@b", "a@@b.cd",
                                 '"a"@b.cd', "a@b.cd>", "<a@b.cd>", "a@-b.cd", "a..b@c.de",
                                 ".a@b.cd", "a@b.cd,c@d.ef", "a|b@c.de", "", None, 5,
                                 "a" * 65 + "@b.cd", "a@" + "b" * 250 + ".cd"])
def test_header_injection_and_odd_addresses_are_refused(bad: object) -> None:
    with pytest.raises(core.NotifyError) as exc:
        core.check_email(bad)
    assert exc.value.code == "notify/bad_email" and exc.value.code in ERROR_CODES


def test_webhook_urls() -> None:
    h = core.check_webhook_url("https://hooks.example.com:8443/in/x?k=1", False)
    assert (h.host, h.port, h.target) == ("hooks.example.com", 8443, "/in/x?k=1")
    assert core.check_webhook_url("http://127.0.0.1:9/h", True).port == 9
    for bad in ("http://hooks.example.com/h", "ftp://x.example/h", "https://u:p@x.example/h",
                "https:///h", "https://x.example/\nX: y", "https://x.example:99999/",
                "https://x.example/" + "a" * 2100, None):
        with pytest.raises(core.NotifyError) as exc:
            core.check_webhook_url(bad, False)
        assert exc.value.code == "notify/bad_webhook"


@pytest.mark.parametrize("addr", ["127.0.0.1", "10.0.0.1", "172.16.5.4", "192.168.1.1",
                                  "169.254.169.254", "100.64.0.1", "0.0.0.0", "::1", "fe80::1",
                                  "fc00::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "224.0.0.1",
                                  "ff02::1", "240.0.0.1", "not-an-ip"])
def test_private_addresses_are_not_allowed(addr: str) -> None:
    assert not core.address_allowed(addr, False)
    assert core.address_allowed(addr, True)  # development only


def test_one_private_address_among_public_ones_refuses_the_host() -> None:
    core.addresses_allowed(["93.184.216.34", "2606:2800:220:1::1"], False)
    with pytest.raises(core.NotifyError) as exc:
        core.addresses_allowed(["93.184.216.34", "127.0.0.1"], False)
    assert exc.value.code == "notify/webhook_private"
    with pytest.raises(core.NotifyError) as exc:
        core.addresses_allowed([], False)
    assert exc.value.code == "notify/webhook_unresolvable"


def test_unsubscribe_tokens_are_signed_per_player() -> None:
    key, other = b"k" * 32, b"o" * 32
    token = core.unsubscribe_token(key, "p-1")
    assert core.unsubscribed_player(key, token) == "p-1"
    for bad in (core.unsubscribe_token(other, "p-1"), token.replace("p-1", "p-2"),
                token[:-1], "p-1", ".", ""):
        with pytest.raises(core.NotifyError):
            core.unsubscribed_player(key, bad)


def test_hook_signature_and_back_off() -> None:
    sig = core.hook_signature("s", 1000, b"{}")
    assert sig.startswith("sha256=") and sig != core.hook_signature("s", 1001, b"{}")
    assert [core.retry_after_s(n, 30) for n in (1, 2, 3)] == [30, 60, 120]
    assert core.retry_after_s(30, 30) == core.RETRY_MAX_S


def test_messages_carry_only_the_allowed_facts() -> None:
    t = core.Turn("turn", "g-9", "Empire", 2, "ann", 0, 3_600_000, "https://h/#/game/g-9")
    assert "g-9" in core.turn_subject(t) and "https://h/#/game/g-9" in core.turn_text(t)
    assert set(core.hook_payload(t)) == {"text", "event", "game_id", "title", "seat",
                                         "since_ms", "deadline_ms", "url"}
    assert "Reminder" in core.turn_subject(core.Turn("remind", "g", "E", 0, "", 0, None, "l"))
