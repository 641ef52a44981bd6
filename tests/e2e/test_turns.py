"""Turn-based play through the gateway, on a system of its own under the shipped Valkey ACLs
(every service its own user: the adjudicator appending to ``turns`` in its commit script, the
lobby consuming it and pushing ``my_game`` entries, each only as far as its grants allow).

A table's clocks are refused past its pace as a hostile client would send them; a played
turn-based game's ``turns`` entries come in seq order with seats, players and clocks only,
"My games" lists it for its players (and for nobody else) and pushes each change to their
sockets, while a real-time game is listed live at its start and end only; an abandoned
turn-based game (nobody ever acts, nobody even connects) ends by its deadlines and default
moves; the turn-based quota is hit from outside; and a real game's turn
reaches the notifier (a real SMTP server) as a mail."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from faststream.redis.parser import BinaryMessageFormatV1

from clients.sdk import ApiError, Client
from clients.sdk.bot_player import play_seat
from services.supervisor import Supervisor
from shared.protocol.turns import TURNS, SeatCommitted, TurnsChanged, Waiting
from shared.runtime.valkey import free_port
from tests.support.notify_sinks import MailSink
from tests.support.waits import eventually

pytestmark = [pytest.mark.e2e, pytest.mark.full]

DAY = 86_400_000
ENV = {"EMPIRE_ARCHIVE_AFTER_S": "0", "EMPIRE_QUOTA_TURN_BASED_GAMES": "2",
       "EMPIRE_QUOTA_RUNNING_GAMES": "1"}


@pytest.fixture(scope="module")
def smtp() -> Iterator[MailSink]:
    sink = MailSink().start()
    yield sink
    sink.stop()


@pytest.fixture(scope="module")
def hall(smtp: MailSink) -> Iterator[Supervisor]:
    env = {**ENV, "EMPIRE_SMTP_URL": smtp.url, "EMPIRE_MAIL_FROM": "hall@example.org",
           "EMPIRE_TURN_MAIL_DELAY_S": "0", "EMPIRE_NOTIFY_POLL_MS": "50"}
    sup = Supervisor(port=free_port(), log_dir=Path("test-output/logs/turns"), env_extra=env)
    sup.start(wait=180)
    try:
        yield sup
    finally:
        sup.stop()


def turns_entries(sup: Supervisor, game_id: str, kind: str = "turns_changed"
                  ) -> list[dict[str, Any]]:
    """The game's entries of one type on the turns stream (the adjudicator's
    ``turns_changed``, the escrow's ``seat_committed``)."""
    with redis.Redis.from_url(sup.redis_url or "") as admin:
        rows = admin.xrange(TURNS)
    out = []
    for _, fields in rows:
        data, _ = BinaryMessageFormatV1.parse(fields[b"__data__"])
        body = json.loads(data)
        if body["game_id"] == game_id and body.get("type", "turns_changed") == kind:
            out.append(body)
    return out


async def refused(call: Any, code: str = "lobby/bad_request") -> None:
    with pytest.raises(ApiError) as exc:
        await call
    assert exc.value.code == code, exc.value


async def test_clocks_beyond_the_pace_are_refused_typed(hall: Supervisor) -> None:
    async with Client(hall.url) as c:
        await c.sign_in("pacer")
        await refused(c.create_table("duel", seats=2, pace="x"))
        await refused(c.create_table("duel", seats=2, pace="turn-based",
                                     turn_timeout_ms=14 * DAY + 1))
        await refused(c.create_table("duel", seats=2, turn_timeout_ms=2 * DAY))
        await refused(c.create_table("duel", seats=2, pace="real-time",
                                     round_timeout_ms=2 * DAY))
        await refused(c.create_table("duel", seats=2, pace="turn-based",
                                     time_bank_ms=14 * DAY + 1))
        # the raw body, as a hostile client sends it: a typed 400, never a 500
        r = httpx.post(f"{hall.url}/api/tables", headers={"Authorization": f"Bearer {c.token}"},
                       json={"game": "duel", "seats": 2, "pace": None,
                             "turn_timeout_ms": "1209600000"})
        assert r.status_code == 400 and r.json()["code"] == "lobby/bad_request"
        t = await c.create_table("duel", seats=2, pace="turn-based",
                                 turn_timeout_ms=14 * DAY, round_timeout_ms=14 * DAY)
        assert (t["pace"], t["turn_timeout_ms"]) == ("turn-based", 14 * DAY)
        assert (await c.get_table(t["table_id"]))["pace"] == "turn-based"


async def test_a_turn_based_game_publishes_its_turns_and_my_games_follows_it(
        hall: Supervisor) -> None:
    async with Client(hall.url, capture=True) as a, Client(hall.url) as b, \
            Client(hall.url, capture=True) as outsider:
        await a.sign_in("tb-ada")
        await b.sign_in("tb-bob")
        await outsider.sign_in("tb-eve")
        for c in (a, b, outsider):
            await c.connect()  # my_game frames reach every socket of the player
        t = await a.create_table("duel", seats=2, options={"rounds": 2}, pace="turn-based",
                                 turn_timeout_ms=3 * DAY, round_timeout_ms=3 * DAY)
        await b.join(t["table_id"])
        gid = await a.start(t["table_id"])

        async def listed(c: Client) -> bool:
            return any(g["game_id"] == gid for g in await c.my_games())
        await eventually(lambda: listed(a), "the game in ada's My games", every_s=0.5)
        first = next(g for g in await a.my_games() if g["game_id"] == gid)
        assert first["pace"] == "turn-based" and first["seat"] == 0
        # both seats play (the entropy round, calls, sealed picks) through the WebSocket
        sa, sb = await asyncio.wait_for(asyncio.gather(play_seat(a, gid), play_seat(b, gid)),
                                        240)
        assert sa.ended and sb.ended and sa.verify_reveals() == []

        async def ended_for(c: Client) -> bool:
            return any(g["game_id"] == gid and g["ended"] for g in await c.my_games())
        await eventually(lambda: ended_for(a), "the game ended in ada's My games", 60, 0.5)
        await eventually(lambda: ended_for(b), "the game ended in bob's My games", 60, 0.5)
        def pushed(c: Client) -> list[dict[str, Any]]:
            frames = [json.loads(f) for f in c.captured or []]
            return [f["game"] for f in frames if f.get("type") == "my_game"]
        await eventually(lambda: any(g["game_id"] == gid and g["ended"] for g in pushed(a)),
                         "the end pushed to ada's socket", 60)
        mine = pushed(a)
        assert any(g["my_turn"] and g["deadline_ms"] for g in mine)  # "your turn", a clock
        assert all(g["game_id"] == gid and g["players"][g["seat"]] == a.player_id
                   for g in mine)
        assert [g["seq"] for g in mine] == sorted(g["seq"] for g in mine)
        assert await outsider.my_games() == []  # not seated: nothing listed, nothing pushed
        assert pushed(outsider) == []

    entries = turns_entries(hall, gid)
    seqs = [e["seq"] for e in entries]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs), seqs
    assert entries[-1]["ended"] and not any(e["ended"] for e in entries[:-1])
    assert any(e["waiting"] and len(e["waiting"]) == 2 for e in entries)  # a sealed round
    assert any(len(e["waiting"]) == 1 for e in entries)  # a call
    for e in entries:  # seats, players and clocks; never a choice, a nonce, a hand
        assert set(e) == set(TurnsChanged.model_fields)
        assert all(set(w) == set(Waiting.model_fields) for w in e["waiting"])
        assert e["pace"] == "turn-based" and len(e["players"]) == 2
        text = json.dumps({k: v for k, v in e.items() if k != "round_id"})  # the id is public
        assert all(s not in text for s in ("nonce", "choice", "stake", "opening", "view"))
    # the escrow (its own Valkey user) appended each seat's accepted commit of a sealed round
    # the adjudicator's entries name; nothing of the choice
    rounds = {e["round_id"] for e in entries if e["round_id"]}
    commits = turns_entries(hall, gid, "seat_committed")
    assert rounds and {c["round_id"] for c in commits} <= rounds
    # both seats played every round (the client-seed round and the picks)
    assert {(c["round_id"], c["seat"]) for c in commits} == {(r, s) for r in rounds
                                                            for s in (0, 1)}
    for c in commits:
        assert set(c) == set(SeatCommitted.model_fields)
        assert c["player_id"] == (a.player_id, b.player_id)[c["seat"]]
        text = json.dumps(c)
        assert all(s not in text for s in ("nonce", "choice", "commitment", "stake", "sealed"))


async def test_a_real_time_game_is_listed_live_and_its_moves_stay_at_its_table(
        hall: Supervisor) -> None:
    async with Client(hall.url, capture=True) as a, Client(hall.url) as b:
        await a.sign_in("rt-ada")
        await b.sign_in("rt-bob")
        await a.connect()
        t = await a.create_table("duel", seats=2, options={"rounds": 2})  # real-time
        await b.join(t["table_id"])
        gid = await a.start(t["table_id"])

        async def live(c: Client) -> dict[str, Any] | None:
            return next((g for g in await c.my_games() if g["game_id"] == gid), None)
        await eventually(lambda: live(a), "the live game in ada's My games", every_s=0.5)
        g = await live(a)
        assert g is not None and g["pace"] == "real-time" and g["seat"] == 0
        assert (g["waiting"], g["my_turn"], g["ended"]) == ([], False, False)
        sa, sb = await asyncio.wait_for(asyncio.gather(play_seat(a, gid), play_seat(b, gid)),
                                        240)
        assert sa.ended and sb.ended

        async def ended_for(c: Client) -> bool:
            found = await live(c)
            return found is not None and found["ended"]
        await eventually(lambda: ended_for(a), "the game ended in ada's My games", 60, 0.5)
        await eventually(lambda: ended_for(b), "the game ended in bob's My games", 60, 0.5)
        frames = [json.loads(f) for f in a.captured or []]
        pushed = [f["game"] for f in frames if f.get("type") == "my_game"
                  and f["game"]["game_id"] == gid]
        assert pushed and all(p["waiting"] == [] and not p["my_turn"] for p in pushed)
    # its start and its end; none of its moves, none of its rounds' commits
    entries = turns_entries(hall, gid)
    assert [e["ended"] for e in entries] == [False, True], entries
    assert all(e["waiting"] == [] and e["round_id"] is None for e in entries)
    assert turns_entries(hall, gid, "seat_committed") == []


async def test_an_abandoned_turn_based_game_ends_by_its_deadlines(hall: Supervisor) -> None:
    async with Client(hall.url) as a, Client(hall.url) as b:
        await a.sign_in("tb-gone-a")
        await b.sign_in("tb-gone-b")
        t = await a.create_table("duel", seats=2, options={"rounds": 1}, pace="turn-based",
                                 turn_timeout_ms=1_000, round_timeout_ms=1_000)
        await b.join(t["table_id"])
        gid = await a.start(t["table_id"])  # and neither ever connects or acts

        async def over() -> bool:
            try:
                return bool((await a.record(gid))["ended"])
            except ApiError:
                return False
        await eventually(over, "the abandoned game ended", 120, every_s=0.5)
        rec = await a.record(gid)
        (end,) = [e for e in rec["record"] if e["type"] == "game_ended"]
        assert "status" not in end["outcome"]  # ended by its rules, not by its lifetime
        assert any(m.get("by") == "timeout" for m in rec["log"])  # the call's default

        async def ended_listed() -> bool:
            return any(g["game_id"] == gid and g["ended"] for g in await b.my_games())
        await eventually(ended_listed, "the end in bob's My games", 60, 0.5)


async def test_turn_based_games_have_their_own_quota_hit_from_outside(hall: Supervisor) -> None:
    async with Client(hall.url) as host, Client(hall.url) as guest:
        await host.sign_in("tb-quota")
        await guest.sign_in("tb-quota-guest")

        async def start(**table: Any) -> str:
            t = await host.create_table("duel", seats=2, **table)
            await guest.join(t["table_id"])
            return await host.start(t["table_id"])
        await start()  # the one real-time game (EMPIRE_QUOTA_RUNNING_GAMES=1)
        with pytest.raises(ApiError) as exc:
            await start()
        assert exc.value.code == "lobby/quota" and "running games" in exc.value.message
        for _ in range(2):  # EMPIRE_QUOTA_TURN_BASED_GAMES=2, beside the real-time one
            await start(pace="turn-based")
        with pytest.raises(ApiError) as exc:
            await start(pace="turn-based")
        assert exc.value.code == "lobby/quota"
        assert exc.value.message.startswith("You already have 2 running turn-based games")


async def test_a_real_turn_reaches_the_notifier_as_a_mail(hall: Supervisor,
                                                          smtp: MailSink) -> None:
    """The adjudicator's own turns entry (no test-written one) reaches the notifier: a
    turn-based game waiting for a player with a confirmed address mails it, naming the game
    and nothing hidden."""
    addr = "turns-ada@example.org"
    async with Client(hall.url) as a, Client(hall.url) as b:
        await a.sign_in("tb-mail-ada")
        await b.sign_in("tb-mail-bob")
        auth = {"Authorization": f"Bearer {a.token}"}
        async with httpx.AsyncClient(base_url=hall.url, timeout=30) as http:
            put = await http.put("/api/me/notifications", json={"email": addr}, headers=auth)
            assert put.status_code == 200, put.text
            await eventually(lambda: len(smtp.to(addr)) == 1, "the verification mail")
            link = next(w for w in smtp.to(addr)[0].text.split() if "/verify?" in w)
            assert (await http.get(link.removeprefix(hall.url))).status_code == 303
        t = await a.create_table("duel", seats=2, pace="turn-based", turn_timeout_ms=2 * DAY,
                                 round_timeout_ms=2 * DAY)
        await b.join(t["table_id"])
        gid = await a.start(t["table_id"])  # its client-seed round waits for both seats

        def mails() -> list[Any]:
            return [m for m in smtp.to(addr) if gid in str(m.msg["Subject"]) + m.text]
        await eventually(lambda: len(mails()) == 1, "the turn mail", 60, 0.2)
        text = str(mails()[0].msg["Subject"]) + mails()[0].text
        assert f"/#/game/{gid}" in text
        assert all(s not in text.lower() for s in ("nonce", "commitment", "seed:"))
