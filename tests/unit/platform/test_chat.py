"""Table talk's pure parts: the text cleaning (control and bidi characters, size caps), the
frames' shapes, the channel keys the fan-out names, who reads which channel of a game, and
that the SDK keeps chat away from a GameSession (what a bot plays from)."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import ValidationError

from clients.sdk.client import ChatLog, Client, GameSession
from services.gateway.chat.rooms import game_room, readable_channels, room_of_key, table_room
from shared.identity.chat_text import BadText, clean
from shared.protocol import client as cm
from shared.protocol import server as sm
from shared.protocol.errors import ERROR_CODES

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(("raw", "shown"), [
    ("hello", "hello"),
    ("  two\n\tlines\r\n ", "two lines"),
    ("pay \u202egnp.exe\u202c now", "pay gnp.exe now"),  # RLO / PDF
    ("a\u2066b\u2069c\u200ed\u200fe\u061cf", "abcdef"),  # isolates, LRM, RLM, ALM
    ("zero\u200bwidth\ufeff\u00ad", "zerowidth"),  # ZWSP, BOM, soft hyphen (Cf)
    ("bell\x07 nul\x00 esc\x1b[31m", "bell nul esc[31m"),
    ("<script>alert(1)</script>", "<script>alert(1)</script>"),  # text, never HTML
    ("👩\u200d💻 ok", "👩\u200d💻 ok"),  # ZWJ inside an emoji sequence stays
    ("\u200dlead trail\u200d", "lead trail"),  # ZWJ elsewhere goes
    ("e\u0301", "\u00e9"),  # NFC
    ("wide\u3000space\u2028line", "wide space line"),
])
def test_clean_strips_controls_and_bidi(raw: str, shown: str) -> None:
    assert clean(raw, 100) == shown


def test_accented_text_and_emoji_pass() -> None:
    assert clean("Nguyễn: שָׁלוֹם ❤️ a\u3164b", 100) == "Nguyễn: שָׁלוֹם ❤️ ab"


@pytest.mark.parametrize(("raw", "code"), [
    ("", "chat/empty"),
    ("\u202e\u200b \n\u2066", "chat/empty"),
    ("x" * 11, "chat/too_long"),
    ("y" * 10_000, "chat/too_long"),
    ("\u3164\u3164", "chat/empty"),  # Hangul fillers: letters that show as nothing
    ("\u2800 \u2800", "chat/empty"),  # blank Braille patterns
    ("\u0301\u0301 \u034f", "chat/empty"),  # marks on nothing, the grapheme joiner
    ("Z\u0336\u0322\u0315\u0358\u0361a", "chat/bad_request"),  # zalgo: marks piled up
])
def test_clean_refuses_empty_blank_zalgo_and_long(raw: str, code: str) -> None:
    with pytest.raises(BadText) as exc:
        clean(raw, 10)
    assert exc.value.code == code and code in ERROR_CODES


def test_ten_characters_after_cleaning_fit_a_cap_of_ten() -> None:
    assert clean("\u202e" * 5 + "x" * 10, 10) == "x" * 10


@pytest.mark.parametrize("frame", [
    {"type": "chat", "cmd_id": "m1", "channel": "table", "game_id": "g-1", "text": "x"},
    {"type": "chat", "cmd_id": "m1", "channel": "seats", "table_id": "t-1", "text": "x"},
    {"type": "chat", "cmd_id": "m1", "channel": "seats", "game_id": "g-1", "table_id": "t-1",
     "text": "x"},
    {"type": "chat", "cmd_id": "m1", "channel": "lobby", "game_id": "g-1", "text": "x"},
    {"type": "chat", "cmd_id": "m1", "channel": "seats", "game_id": "g-1", "text": "x" * 8193},
    {"type": "chat_join"},
    {"type": "chat_report", "cmd_id": "r1", "channel": "seats", "game_id": "g-1",
     "msg_id": "not-an-id"},
    {"type": "chat_mute", "cmd_id": "u1", "player_id": "p 1"},
])
def test_malformed_chat_frames_are_refused(frame: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        cm.CLIENT_ADAPTER.validate_python(frame)


def test_rooms_round_trip_through_their_keys() -> None:
    for room in (table_room("t-1"), game_room("g-1", "seats"), game_room("g-1", "spectators")):
        assert room_of_key(room.key) == room
    assert game_room("g-1", "seats").key != game_room("g-1", "spectators").key
    for key in ("g:{g-1}:v:spec", "g:{g-1}:rec", "chat:reports", "tchat:{}:msgs", "x"):
        assert room_of_key(key) is None


def test_who_reads_which_channel_of_a_game() -> None:
    meta = {"game_id": "g-1", "table_id": "t-1", "spectators": "anyone",
            "players": [{"player_id": "p-a"}, {"player_id": "b-1"}]}
    assert readable_channels(meta, "p-a") == ["table", "seats"]
    assert readable_channels(meta, "p-z") == ["spectators"]
    assert readable_channels({**meta, "spectators": "players"}, "p-z") == []


async def test_the_sdk_keeps_chat_out_of_game_sessions() -> None:
    c = Client("http://127.0.0.1:9")
    try:
        game = GameSession(game_id="g-1", client=c)
        c.games["g-1"] = game
        c.chats["g:g-1"] = log = ChatLog(table_id=None, game_id="g-1")
        line = {"id": "1-0", "player_id": "p-b", "name": "bo", "text": "hi", "ts": 1}
        frames = [sm.ChatHistory(channel="seats", game_id="g-1", messages=[sm.ChatLine(**line)],
                                 muted=["p-x"]).model_dump(mode="json"),
                  sm.ChatMessage(channel="seats", game_id="g-1", **{**line, "id": "2-0"})
                  .model_dump(mode="json"),
                  sm.ChatMessage(channel="seats", game_id="g-2", **line).model_dump(mode="json")]
        for f in frames:
            c._dispatch(f)
        c._dispatch(frames[0])  # a second history (after a reconnect) adds nothing twice
        assert not game.changed.is_set() and game.events == [] and game.view is None
        assert log.channel == "seats" and [m["id"] for m in log.messages] == ["1-0", "2-0"]
        assert c.muted == {"p-x"} and log.joined.is_set()
        await asyncio.wait_for(log.wait_for(lambda: len(log.messages) == 2), 30)
    finally:
        await c.close()
