"""The page's JavaScript twin of shared/fairness (fairness.js, verify.js) against Python: the
same commitments, seed commitments, game keys and draws (SubtleCrypto and the pure-JS
fallback), and the same verdict on real and tampered records."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from playwright.async_api import Browser, Page

from services.supervisor import Supervisor
from shared.fairness.commitments import commitment, commitments_root, default_commitment
from shared.fairness.draws import draw, game_key, seed_commitment
from shared.fairness.verify import verify
from tests.e2e.conftest import play_bot_game

pytestmark = pytest.mark.browser

CHOICES: list[Any] = [
    0,
    7,
    -3,
    2**40,
    True,
    False,
    None,
    "",
    "abc",
    "é✓ ü",
    '\u2028 " \\ \n',
    "😀",
    [1, "x", None],
    {"engine": "L", "gear": 2, "boost": "none"},
    {"b": [1, {"z": 1, "a": 2}], "a": None, "😀": 1, "\uffff": 2, "10": 0, "9": 1},
    {"axes": 3, "coins": 0},
    {"type": "raise", "bid": 12},
]
BIG = 2**63 + 1  # rejection hits ~50% of 8-byte words


def _vectors() -> dict[str, Any]:
    seed = bytes(range(32))
    seeds = [bytes.fromhex("ab" * 32), b"", bytes(32)]
    key = game_key(seed, "g-abc", "1", seeds)
    draws: list[tuple[str, str, int | str, int]] = [
        ("setup:first", "below", 3, 1),
        ("deck:auction:shuffle:0", "shuffle", 52, 1),
        ("deck:big", "shuffle", 300, 1),
        ("one", "shuffle", 1, 1),
        ("dice:turn:12:attack:3", "dice", 6, 9),
        ("d20", "dice", 20, 4),
        ("coin", "below", 2, 33),
        ("unit", "below", 1, 3),
        ("huge", "below", str(BIG), 8),
        ("three-quarters", "below", str(3 * 2**62), 8),
    ]
    return {
        "commitments": [
            {
                "game": g,
                "round": r,
                "slot": s,
                "seat": seat,
                "choice": c,
                "nonce": n,
                "c": commitment(g, r, s, seat, c, n),
            }
            for i, c in enumerate(CHOICES)
            for g, r, s, seat, n in [
                ("g-0123", f"round:{i}", f"s{i % 4}", i % 4, f"{i:02x}" * 32),
                ("ü-game", "plan:1", "s2:1", 11, "ff" * 32),
            ]
        ],
        "defaults": [
            {
                "game": "g-x",
                "round": "commerce:2",
                "slot": "s1",
                "default": d,
                "salt": salt,
                "c": default_commitment("g-x", "commerce:2", "s1", d, salt),
            }
            for d in (0, "", {"engine": "L", "top": "produce"})
            for salt in ("", "0f" * 16)
        ],
        "roots": [
            {"pairs": pairs, "root": commitments_root([(a, b) for a, b in pairs])}
            for pairs in (
                [],
                [["s1", "bb"], ["s0", "aa"]],
                [["s2:1", "c" * 64], ["s10", "d" * 64], ["s1", "e" * 64]],
            )
        ],
        "seed": {"server_seed": seed.hex(), "game": "g-abc", "c": seed_commitment("g-abc", seed)},
        "game_key": {"client_seeds": [s.hex() for s in seeds], "rules": "1", "key": key.hex()},
        "draws": [
            {
                "label": lb,
                "kind": k,
                "n": n,
                "count": cnt,
                "values": [str(v) for v in draw(key, lb, k, int(n), cnt)],
            }
            for lb, k, n, cnt in draws
        ],
    }


JS_VECTORS = """async ([v, fallback]) => {
  const F = await import("/static/fairness.js");
  F.useFallback(fallback);
  const out = { subtle: F.usingSubtle(), commitments: [], defaults: [], roots: [], draws: [] };
  for (const x of v.commitments)
    out.commitments.push(await F.commitment(x.game, x.round, x.slot, x.seat, x.choice, x.nonce));
  for (const x of v.defaults)
    out.defaults.push(await F.defaultCommitment(x.game, x.round, x.slot, x.default, x.salt));
  for (const x of v.roots) out.roots.push(await F.commitmentsRoot(x.pairs));
  const seed = F.unhex(v.seed.server_seed);
  out.seed = await F.seedCommitment(v.seed.game, seed);
  const seeds = v.game_key.client_seeds.map(F.unhex);
  const key = await F.gameKey(seed, v.seed.game, v.game_key.rules, seeds);
  out.key = F.hex(key);
  for (const d of v.draws) {
    const n = typeof d.n === "string" ? BigInt(d.n) : d.n;
    out.draws.push((await F.draw(key, d.label, d.kind, n, d.count)).map(String));
  }
  const nonces = new Set(Array.from({ length: 50 }, () => F.newNonce()));
  out.nonces = [...nonces].every((n) => /^[0-9a-f]{64}$/.test(n)) ? nonces.size : -1;
  F.useFallback(false);
  return out;
}"""


async def _page(browser: Browser, web: Supervisor) -> Page:
    page = await browser.new_page()
    await page.goto(web.url + "/")  # a secure context (loopback): SubtleCrypto is available
    return page


@pytest.mark.parametrize("fallback", [False, True], ids=["subtle", "pure-js"])
async def test_js_twin_matches_python_vectors(
    browser: Browser, web: Supervisor, fallback: bool
) -> None:
    v = _vectors()
    page = await _page(browser, web)
    try:
        js = await page.evaluate(JS_VECTORS, [v, fallback])
    finally:
        await page.close()
    assert js["subtle"] is (not fallback)
    assert js["commitments"] == [x["c"] for x in v["commitments"]]
    assert js["defaults"] == [x["c"] for x in v["defaults"]]
    assert js["roots"] == [x["root"] for x in v["roots"]]
    assert js["seed"] == v["seed"]["c"]
    assert js["key"] == v["game_key"]["key"]
    assert js["draws"] == [d["values"] for d in v["draws"]]
    assert js["nonces"] == 50  # 32 random bytes each, never repeated


def _tampered(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """One copy of a finished record per kind of lie the verifier must catch."""
    out: dict[str, dict[str, Any]] = {}

    def variant(name: str) -> dict[str, Any]:
        out[name] = copy.deepcopy(doc)
        return out[name]

    rec = variant("server seed")["record"]
    sr = next(e for e in rec if e["type"] == "seed_revealed")
    sr["server_seed"] = ("0" if sr["server_seed"][0] != "0" else "1") + sr["server_seed"][1:]
    rec = variant("draw value")["record"]
    d = next(e for e in rec if e["type"] == "seed_revealed")["draws"][-1]
    d["values"] = [*d["values"][:-1], d["values"][-1] + 1]
    rec = variant("nonce")["record"]
    o = next(e for e in rec if e["type"] == "round_revealed" and e["round_id"] != "entropy")
    op = next(x for x in o["openings"] if not x["defaulted"])
    op["nonce"] = ("1" if op["nonce"][0] == "0" else "0") + op["nonce"][1:]
    rec = variant("choice")["record"]
    o = next(e for e in rec if e["type"] == "round_revealed" and e["round_id"] != "entropy")
    op = next(x for x in o["openings"] if not x["defaulted"])
    op["choice"] = (op["choice"] + 1) % 10
    rec = variant("root")["record"]
    c = next(e for e in rec if e["type"] == "round_closed")
    c["root"] = "0" * 64
    log = variant("applied choices")["log"]
    j = next(e for e in log if e["move"]["kind"] == "joint")
    k0 = next(iter(j["move"]["choices"]))
    j["move"]["choices"][k0] = (j["move"]["choices"][k0] + 1) % 10
    rec = variant("commit after close")["record"]
    i = next(i for i, e in enumerate(rec) if e["type"] == "round_closed")
    late = next(e for e in rec if e["type"] == "committed" and e["round_id"] == rec[i]["round_id"])
    rec.insert(i + 1, {**late, "commitment": "e" * 64})
    rec = variant("public draw")["record"]
    pub = next(e for e in rec if e["type"] == "draw" and "values" in e)
    pub["values"] = [v + 1 for v in pub["values"]]
    return out


async def test_js_verifier_agrees_with_python(browser: Browser, web: Supervisor) -> None:
    played = await play_bot_game(web.url, "duel", 3, {"rounds": 3})
    doc = played.record
    cases = {"honest": doc, **_tampered(doc)}
    page = await _page(browser, web)
    try:
        js = await page.evaluate(
            """async (cases) => {
                 const { verifyRecord } = await import("/static/verify.js");
                 const out = {};
                 for (const [name, doc] of Object.entries(cases)) {
                   const r = await verifyRecord(doc);
                   out[name] = { problems: r.problems, counts: r.counts, checks: r.checks.length };
                 }
                 return out;
               }""",
            cases,
        )
    finally:
        await page.close()
    for name, case in cases.items():
        problems, counts = verify(case)
        assert js[name]["problems"] == problems, name
        assert js[name]["counts"] == counts, name
        assert (problems == []) is (name == "honest"), (name, problems)
    assert js["honest"]["counts"]["draws"] >= 4 and js["honest"]["counts"]["commitments"] >= 9
