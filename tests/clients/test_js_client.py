"""The JavaScript client (Node, no npm dependencies; its fairness is the web page's
fairness-core.mjs): its fairness primitives agree byte for byte with shared/fairness, and it
plays a real game to an end it verifies from the public record, log and its own receipts."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from clients.sdk import Client
from services.supervisor import Supervisor
from shared.fairness.commitments import commitment, commitments_root, default_commitment
from shared.fairness.draws import draw, game_key, seed_commitment
from shared.fairness.lp import canonical_json
from shared.fairness.seal import public_key
from tests.support.node import DESCRIPTION, NODE, WS_FLAGS, major, node22

pytestmark = pytest.mark.clients

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "clients" / "js" / "empire-client.mjs"
needs_node = pytest.mark.skipif(NODE is None, reason="node (20+) is not installed")

NONCE = "ab" * 32
CHOICES: list[Any] = [
    0,
    7,
    -3,
    "",
    "x",
    True,
    None,
    [1, [2, 3]],
    {"b": 1, "a": {"d": [4], "c": None}},
    {"engine": "L", "gear": 2, "boost": "none"},
    "é ü ✓ 帝国 😀",
    'q"uo\\te\n\t\u0001',
    {"Z": 1, "a": 2, "_": 3, "é": 4},
    2**53 - 1,
]
DRAWS = [("shuffle", 52, 1), ("below", 7, 5), ("dice", 6, 3), ("below", 1, 2), ("shuffle", 1, 1)]


def _node(script: str, env: dict[str, str] | None = None, timeout: float = 30) -> str:
    assert NODE is not None
    out = subprocess.run(
        [NODE, "--input-type=module", "-e", script],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env=env,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


@needs_node
def test_js_fairness_primitives_match_python() -> None:
    key = game_key(b"\x01" * 32, "g-1", "1", [bytes.fromhex("cd" * 32), b""])
    vectors = {"choices": CHOICES, "draws": DRAWS, "key": key.hex()}
    script = f"""
import * as c from {json.dumps(CLIENT.as_uri())};
const v = {json.dumps(vectors)};
const key = Buffer.from(v.key, "hex");
console.log(JSON.stringify({{
  canonical: v.choices.map(c.canonicalJson),
  commitments: v.choices.map((x, i) => c.commitment("g-1", "pick:" + i, "s" + (i % 3), i % 4, x,
                                                    "{NONCE}")),
  defaults: v.choices.map((x) => c.defaultCommitment("g-1", "r", "s0", x, "{NONCE}")),
  root: c.commitmentsRoot([["s1", "{"cd" * 32}"], ["s0", "{"ef" * 32}"]]),
  seed: c.seedCommitment("g-1", Buffer.alloc(32, 1)),
  key: Buffer.from(c.gameKey(Buffer.alloc(32, 1), "g-1", "1",
                             [Buffer.from("{"cd" * 32}", "hex"), Buffer.alloc(0)])).toString("hex"),
  draws: v.draws.map(([kind, n, count], i) => c.draw(key, "lbl:" + i, kind, n, count)),
}}));
"""
    got = json.loads(_node(script))
    assert got["canonical"] == [canonical_json(x) for x in CHOICES]
    assert got["commitments"] == [
        commitment("g-1", f"pick:{i}", f"s{i % 3}", i % 4, x, NONCE) for i, x in enumerate(CHOICES)
    ]
    assert got["defaults"] == [default_commitment("g-1", "r", "s0", x, NONCE) for x in CHOICES]
    assert got["root"] == commitments_root([("s1", "cd" * 32), ("s0", "ef" * 32)])
    assert got["seed"] == seed_commitment("g-1", b"\x01" * 32)
    assert got["key"] == key.hex()
    assert got["draws"] == [
        draw(key, f"lbl:{i}", kind, n, count) for i, (kind, n, count) in enumerate(DRAWS)
    ]


def _play(
    url: str,
    name: str,
    rounds: int,
    flags: list[str],
    env: dict[str, str] | None = None,
    drop: int = 0,
) -> tuple[dict[str, Any], str]:
    assert NODE is not None
    out = subprocess.run(
        [
            NODE,
            *flags,
            str(CLIENT),
            "--url",
            url,
            "--name",
            name,
            "--game",
            "duel",
            "--seats",
            "2",
            "--drop",
            str(drop),
            "--options",
            json.dumps({"rounds": rounds}),
            "--timeout",
            "90",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, **(env or {})},
    )
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("RESULT ")]
    assert lines, out.stdout + out.stderr
    return json.loads(lines[-1].removeprefix("RESULT ")), out.stdout


@needs_node
@pytest.mark.parametrize("drop", [0, 2])
async def test_js_client_plays_a_duel_and_verifies(clients_system: Supervisor, drop: int) -> None:
    """On the platform's WebSocket (Node 20's behind its flag), also with the connection
    dropped after every second decision (it resumes and re-sends)."""
    rounds = 3
    result, log = _play(clients_system.url, f"js-drop{drop}", rounds, WS_FLAGS, None, drop)
    assert result["finished"] and result["verified"], log
    assert result["problems"] == [] and result["rejections"] == [], log
    assert result["reconnects"] >= (2 if drop else 0), log
    # entropy + one pick per round, for both seats; the first seat and one die per round
    assert result["reveals_verified"] == 2 * (1 + rounds)
    assert result["my_commitments"] == 1 + rounds
    assert result["draws_verified"] == 1 + rounds
    # the whole public record and log, with this seat's receipts (its entropy seed and picks)
    assert result["rounds_verified"] == 1 + rounds
    assert result["receipts_verified"] == result["my_commitments"]
    assert result["applied_verified"] == 2 * rounds + 1  # each pick, each die, the first seat
    assert len(result["outcome"]["results"]) == 2
    # the server-side verifier agrees on the same game
    async with Client(clients_system.url) as c:
        checked = await c.verify_game(result["game_id"])
    assert checked.ok, checked.problems
    assert checked.counts["commitments"] == result["reveals_verified"]


@needs_node
def test_the_client_tests_run_on_node_22_with_no_flag() -> None:
    """The tests run on a real Node 22 (npm's node-<os>-<arch>@22,
    cached in .tools/node22), whose WebSocket needs no flag; only where that cannot be fetched
    do they fall back to the system's Node (with --experimental-websocket on 20 and 21)."""
    if os.environ.get("EMPIRE_TEST_NODE") == "system":
        pytest.skip(f"EMPIRE_TEST_NODE=system: ran on {DESCRIPTION}")
    found, why = node22()
    if found is None:
        pytest.skip(f"no Node 22 here ({why}); ran on {DESCRIPTION}")
    assert NODE is not None
    assert found == NODE and major(NODE) == 22 and WS_FLAGS == [], DESCRIPTION
    # the platform WebSocket is there unflagged
    assert _node("console.log(typeof globalThis.WebSocket)").strip() == "function"


def test_js_client_has_no_websocket_or_fairness_code_of_its_own() -> None:
    """One fairness implementation for the browser and Node (the page's modules, imported),
    and the platform's WebSocket: no RFC 6455 framing, no hashing or LP in the client's files."""
    text = "".join(p.read_text() for p in sorted(CLIENT.parent.glob("*.mjs")))
    static = "../web/"
    for module in ("fairness-core.mjs", "seal.mjs", "signing.mjs"):
        assert f'from "{static}{module}"' in text, module
    for own in ("function sha256", "function lp(", "function canonical(", "function commitment(",
                "function draw(", "createHash", "Sec-WebSocket-Key", "node:http", "node:net"):
        assert own not in text, own
    assert "globalThis.WebSocket" in text


@needs_node
def test_js_client_without_a_platform_websocket_says_what_to_do(
    clients_system: Supervisor,
) -> None:
    """No hand-written fallback: where the platform has no WebSocket (here taken away with
    --no-experimental-websocket, which Node 20 and 22 both accept) the client signs in, then
    stops with a message naming the Node version or flag that provides one."""
    result, _ = _play(clients_system.url, "js-nows", 1, ["--no-experimental-websocket"])
    assert not result["finished"] and not result["verified"]
    assert "no WebSocket" in result["error"] and "--experimental-websocket" in result["error"]
    assert "Node 22" in result["error"]
    # the library's entry point says the same to a program that imports it
    script = f"""
delete globalThis.WebSocket;
const m = await import({json.dumps(CLIENT.as_uri())});
try {{ m.openSocket("ws://127.0.0.1:1/ws"); console.log("opened"); }}
catch (err) {{ console.log(JSON.stringify(err.message === m.NO_WEBSOCKET)); }}
"""
    assert json.loads(_node(script)) is True


ESCROW_KEY = public_key("11" * 32)


@needs_node
def test_js_commit_refused_or_unanswered_leaves_no_receipt() -> None:
    """As in the SDK: a commit that was refused, not taken (``message/unavailable``) or not
    answered keeps no receipt, so the bot loop commits that slot again instead of waiting
    for the round's deadline; an acknowledged one keeps its receipt."""
    script = f"""
import * as m from {json.dumps(CLIENT.as_uri())};
const client = new m.Client("http://127.0.0.1:1");
const game = new m.GameSession("g-1");
game.seat = 0;
game.escrowKeys.set("r-0", "{ESCROW_KEY}");  // a round_opened seen: the escrow's key
client.registerSessionKey = async () => {{}};  // (no server: the key counts as registered)
const out = {{}};
for (const [name, reply] of [
  ["refused", {{type: "rejected", code: "escrow/bad_choice", message: "no"}}],
  ["unavailable", {{type: "rejected", code: "message/unavailable", message: "retry"}}],
  ["no_answer", null],
  ["committed", {{type: "committed"}}],
]) {{
  client.command = async () => {{ if (reply === null) throw new Error("no reply"); return reply; }};
  let error = null;
  try {{ await client.commit(game, "r-" + name, "s0", 1); }}
  catch (err) {{ error = err instanceof m.ApiError ? {{code: err.code, transient: err.transient}}
                                                 : String(err.message); }}
  out[name] = {{receipt: game.receipts.has("r-" + name + "/s0"), error}};
}}
console.log(JSON.stringify(out));
"""
    got = json.loads(_node(script))
    assert got == {
        "refused": {"receipt": False, "error": {"code": "escrow/bad_choice", "transient": False}},
        "unavailable": {"receipt": False,
                        "error": {"code": "message/unavailable", "transient": True}},
        "no_answer": {"receipt": False, "error": "no reply"},
        "committed": {"receipt": True, "error": None},
    }


@needs_node
def test_js_a_refused_watch_that_may_pass_is_sent_again_whoever_sent_it() -> None:
    """As in the SDK (tests/unit/platform/test_sdk_retry.py): a watch refused with a refusal
    that may pass (here the reconnect's resumed watch, refused by a gateway cut off from
    storage) is sent again from where the session stands; the re-sends are bounded (then the
    refusal is the caller's), and a frame of the game starts the count over."""
    script = f"""
import * as m from {json.dumps(CLIENT.as_uri())};
m.WATCH_BACKOFF_MS.splice(0, m.WATCH_BACKOFF_MS.length, 1);
const client = new m.Client("http://127.0.0.1:1");
const game = new m.GameSession("g-1");
game.seq = 7; game.recordId = "5-0";
client.games.set("g-1", game);
const sent = [];
const refusal = (code) => ({{type: "rejected", v: 1, cmd_id: null, game_id: "g-1", code,
                             message: "storage unavailable"}});
let refuseAgain = 2;
client.send = (msg) => {{
  sent.push(msg);
  if (refuseAgain-- > 0) client.dispatch(refusal("message/unavailable"));
}};
client.dispatch(refusal("message/unavailable"));  // the resumed watch, refused
await new Promise((r) => setTimeout(r, 100));
const first = {{sent: sent.map((x) => [x.type, x.after_seq, x.after_record]),
               rejections: game.rejections.length, rewatched: client.rewatched}};
// refused for ever: bounded, then the caller's; a record frame resets the count once
sent.length = 0; refuseAgain = 1000;
client.dispatch({{type: "record", game_id: "g-1", id: "9-0", entry: {{type: "event"}}}});
client.dispatch(refusal("game/not_found"));
await new Promise((r) => setTimeout(r, 300));
const second = {{sent: sent.length, last: game.rejections.at(-1)?.code,
                pending: client.rewatch.size}};
// a refusal for good is never sent again
sent.length = 0;
client.rewatchTries.clear();
client.dispatch(refusal("auth/forbidden"));
await new Promise((r) => setTimeout(r, 50));
client.close();
console.log(JSON.stringify({{first, second, forGood: sent.length, tries: m.WATCH_TRIES}}));
"""
    got = json.loads(_node(script))
    assert got["first"] == {"sent": [["watch", 7, "5-0"]] * 3, "rejections": 0, "rewatched": 3}
    assert got["second"] == {"sent": got["tries"], "last": "message/unavailable", "pending": 0}
    assert got["forGood"] == 0


PAGE_API = ROOT / "clients" / "web" / "api.js"


@needs_node
def test_the_page_sends_a_refused_watch_again_and_keeps_it_from_the_board() -> None:
    """The web page's socket (clients/web/api.js) does as the clients do: its
    resumed watch refused by a refusal that may pass is sent again from the last seq and
    record id (the board does not freeze), bounded; a refusal for good reaches the page."""
    script = f"""
globalThis.localStorage = {{getItem: () => null, setItem() {{}}, removeItem() {{}}}};
const api = await import({json.dumps(PAGE_API.as_uri())});
api.WATCH_BACKOFF_MS.splice(0, api.WATCH_BACKOFF_MS.length, 1);
const page = [];
const sock = new api.Socket((m) => page.push(m.code || m.type));
sock.watching = {{game_id: "g-1", seq: 4, record: "3-0"}};
const sent = [];
let refuse = 1;
sock.send = (m) => {{ sent.push([m.type, m.after_seq, m.after_record]);
  if (refuse-- > 0) feed({{type: "rejected", cmd_id: null, game_id: "g-1",
                          code: "message/rate_limited", message: "slow down"}}); }};
const feed = (m) => {{ if (!sock.watchRefused(m)) page.push(m.code || m.type); }};
feed({{type: "rejected", cmd_id: null, game_id: "g-1", code: "message/unavailable", message: "x"}});
await new Promise((r) => setTimeout(r, 50));
const first = {{sent: [...sent], page: [...page]}};
sent.length = 0; page.length = 0; refuse = 1000;
feed({{type: "rejected", cmd_id: null, game_id: "g-1", code: "message/unavailable", message: "x"}});
await new Promise((r) => setTimeout(r, 300));
const second = {{sent: sent.length, page: [...page]}};
page.length = 0;
feed({{type: "rejected", cmd_id: null, game_id: "g-1", code: "auth/forbidden", message: "no"}});
feed({{type: "rejected", cmd_id: "w1", game_id: "g-1", code: "message/unavailable", message: "x"}});
sock.close();
console.log(JSON.stringify({{first, second, forGood: page, tries: api.WATCH_TRIES}}));
"""
    got = json.loads(_node(script))
    assert got["first"] == {"sent": [["watch", 4, "3-0"]] * 2, "page": []}
    # 2 tries were spent above (no frame of the game since): the rest, then the page hears
    assert got["second"] == {"sent": got["tries"] - 2, "page": ["message/rate_limited"]}
    # a refusal for good, and a command's refusal (it has its cmd_id), go to the page as before
    assert got["forGood"] == ["auth/forbidden", "message/unavailable"]


def _node_ws(script: str, timeout: float = 120) -> str:
    """A script on the platform WebSocket (Node 20/21 need their flag)."""
    assert NODE is not None
    out = subprocess.run(
        [NODE, *WS_FLAGS, "--input-type=module", "-e", script],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


@needs_node
def test_js_my_games_keeps_the_newest_entry_in_the_servers_order_with_the_clock() -> None:
    """As the SDK's my_games.py: a `my_game` frame of an older seq changes nothing of its
    game, the local copy reads in the server's order (waiting for me, oldest wait first; then
    running, latest change first; then ended), the time left counts from the server's clock
    (`now_ms`), the callback hears every frame, and clocks read as the web page writes them."""
    from clients.sdk.my_games import clock_text

    clocks = [None, 0, 45_000, 7 * 60_000, 5 * 3_600_000 + 12 * 60_000, 3_600_000, 86_400_000,
              4 * 86_400_000 + 23 * 3_600_000 + 59 * 60_000]
    script = f"""
import * as m from {json.dumps(CLIENT.as_uri())};
const client = new m.Client("http://127.0.0.1:1");
const heard = [];
client.onMyGames = (g) => heard.push([g.game_id, g.seq, g.my_turn]);
const frame = (game, nowMs) => client.dispatch({{type: "my_game", game, now_ms: nowMs}});
const now = Date.now();
const serverNow = now + 3_600_000;  // the server's clock runs an hour ahead of this machine's
frame({{game_id: "g-a", seq: 5, my_turn: true, since_ms: 200, at_ms: 1, deadline_ms: serverNow
        + 2 * 86_400_000, ended: false}}, serverNow);
frame({{game_id: "g-a", seq: 4, my_turn: false, since_ms: null, at_ms: 9, deadline_ms: null,
        ended: false}}, serverNow);  // older: late, ignored
frame({{game_id: "g-b", seq: 2, my_turn: true, since_ms: 100, at_ms: 2, deadline_ms: null,
        ended: false}}, serverNow);
frame({{game_id: "g-c", seq: 9, my_turn: false, at_ms: 50, ended: false}}, serverNow);
frame({{game_id: "g-d", seq: 9, my_turn: false, at_ms: 80, ended: false}}, serverNow);
frame({{game_id: "g-e", seq: 9, my_turn: false, at_ms: 99, ended: true}}, serverNow);
const waited = client.waitMyGames(5000).then(() => "woken");
frame({{game_id: "g-x"}}, serverNow);  // a frame without a seq is still an entry
const order = client.myGamesNow().map((g) => g.game_id);
const a = client.myGamesById.get("g-a");
console.log(JSON.stringify({{
  order, heard, seqA: a.seq, woken: await waited,
  left: client.timeLeftMs(a), notMine: client.timeLeftMs(client.myGamesById.get("g-c")),
  noClock: client.timeLeftMs(client.myGamesById.get("g-b")),
  clocks: {json.dumps(clocks)}.map(m.clockText),
}}));
"""
    got = json.loads(_node(script))
    assert got["order"] == ["g-b", "g-a", "g-d", "g-c", "g-x", "g-e"]
    assert got["seqA"] == 5
    assert got["heard"][:2] == [["g-a", 5, True], ["g-a", 5, True]]  # the held entry, newest
    assert len(got["heard"]) == 7 and got["woken"] == "woken"
    # two days from the server's now (an hour ahead): not two days and an hour
    assert 2 * 86_400_000 - 60_000 < got["left"] <= 2 * 86_400_000, got["left"]
    assert got["notMine"] is None and got["noClock"] is None
    assert got["clocks"] == [clock_text(c) for c in clocks]


@needs_node
def test_js_client_hears_its_turn_in_a_turn_based_game_from_a_my_game_frame(
    clients_system: Supervisor,
) -> None:
    """A turn-based duel against a bot, started after the client connected: without asking,
    the client's onMyGames hears a `my_game` frame saying the game waits for it (the entropy
    round), with a clock of about the table's three days; myGames() lists it too."""
    day = 86_400_000
    script = f"""
import * as m from {json.dumps(CLIENT.as_uri())};
const client = new m.Client({json.dumps(clients_system.url)});
await client.signIn("js-turns");
await client.connect();
const frames = [];
let gameId = null;
client.onMyGames = (g) => {{ if (g) frames.push(g); }};
const t = await client.createTable("duel", 2, {{rounds: 1}}, {{pace: "turn-based",
  turn_timeout_ms: {3 * day}, round_timeout_ms: {3 * day}}});
await client.addBot(t.table_id);
gameId = await client.start(t.table_id);
const deadline = Date.now() + 60000;
let mine = null;
while (!mine && Date.now() < deadline) {{
  mine = frames.find((g) => g.game_id === gameId && g.my_turn) ?? null;
  if (!mine) await client.waitMyGames(1000);
}}
const now = mine ? client.myGamesNow().find((g) => g.game_id === gameId) : null;
const left = now?.my_turn ? client.timeLeftMs(now) : null;
const listed = (await client.myGames()).map((g) => g.game_id);
client.close();
console.log(JSON.stringify({{gameId, mine, left, text: m.clockText(left), listed,
                            me: client.playerId}}));
"""
    got = json.loads(_node_ws(script))
    mine = got["mine"]
    assert mine is not None, got
    assert mine["pace"] == "turn-based" and mine["players"][mine["seat"]] == got["me"]
    assert mine["deadline_ms"] and any(w["player_id"] == got["me"] for w in mine["waiting"])
    assert got["left"] is not None and 3 * day - 10 * 60_000 < got["left"] <= 3 * day, got
    assert got["gameId"] in got["listed"]
