"""The page's JavaScript fairness (fairness-core.mjs, served by the gateway and imported by
fairness.js and verify.js; the Node client imports the same file) against Python, in Chromium:
the shared vectors (tests/fixtures/fairness-vectors.json), and the same verdict, problem texts
and counts as shared/fairness/verify.py on real records and every tampered one
(tests/support/tamper.py), with receipts; and on a game just played."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.async_api import Browser, Page

from services.supervisor import Supervisor
from shared.fairness.verify import verify
from tests.browser.conftest import UI_TIMEOUT_MS
from tests.e2e.conftest import play_bot_game
from tests.fixtures import fairness_vectors
from tests.support import tamper

pytestmark = pytest.mark.browser

JS_VECTORS = """async (v) => {
  const F = await import("/static/fairness.js");  // the page's module: fairness-core.mjs
  const out = {};
  out.canonical = v.canonical.map((x) => {
    try { return F.canonical(x.value); } catch { return null; }
  });
  out.lp = v.lp.map((x) => F.hex(F.lp(x.text)));
  out.sha256 = v.sha256.map((x) => F.hex(F.sha256(F.unhex(x.data))));
  out.hmac = v.hmac.map((x) => F.hex(F.hmac(F.unhex(x.key))(F.unhex(x.data))));
  out.commitments = [];
  for (const x of v.commitments)  // awaited as play.js does
    out.commitments.push(await F.commitment(x.game, x.round, x.slot, x.seat, x.choice, x.nonce));
  out.defaults = v.defaults.map((x) =>
    F.defaultCommitment(x.game, x.round, x.slot, x.default, x.salt));
  out.roots = v.roots.map((x) => F.commitmentsRoot(x.pairs));
  out.seeds = v.seeds.map((x) => F.seedCommitment(x.game, F.unhex(x.server_seed)));
  out.game_keys = v.game_keys.map((x) => F.hex(F.gameKey(F.unhex(x.server_seed), x.game, x.rules,
    x.client_seeds.map(F.unhex))));
  out.draws = v.draws.map((d) => F.draw(F.unhex(d.key), d.label, d.kind,
    typeof d.n === "string" ? BigInt(d.n) : d.n, d.count).map(String));
  const S = await import("/static/seal.mjs");  // sealed openings, on the vendored @noble
  out.hpke = v.hpke.map((x) => F.hex(S.hpkeSeal(F.unhex(x.pkRm), F.unhex(x.info),
    F.unhex(x.pt), F.unhex(x.aad), F.unhex(x.skEm)).subarray(32)));
  out.seals = v.seals.map((x) => S.sealOpening(x.escrow_key, x.game, x.round, x.slot, x.seat,
    x.choice, x.nonce, F.unhex(x.ephemeral)));
  out.opened = v.seals.map((x) => S.openSealed(x.escrow_private, x.game, x.round, x.slot,
    x.seat, x.sealed));
  const G = await import("/static/signing.mjs");  // signed commands, on the vendored @noble
  out.signed = v.signatures.map((x) => F.hex(G.message(x.game, x.seat, x.cmd_id, x.kind,
    x.body)));
  out.signatures = v.signatures.map((x) => new G.SessionKey(x.secret).sign(F.unhex(x.message)));
  out.verified = v.signatures.map((x) => [G.verifySignature(x.public, x.sig, F.unhex(x.message)),
    G.verifySignature(x.public, x.sig, F.unhex(x.message + "00"))]);
  const nonces = new Set(Array.from({ length: 50 }, () => F.newNonce()));
  out.nonces = [...nonces].every((n) => /^[0-9a-f]{64}$/.test(n)) ? nonces.size : -1;
  return out;
}"""

JS_VERIFY = """async (cases) => {
  const { verifyRecord } = await import("/static/verify.js");
  return cases.map((c) => {
    const r = verifyRecord(c.doc, { receipts: c.receipts });
    return { name: c.name, ok: r.ok, problems: r.problems, counts: r.counts };
  });
}"""


async def _page(browser: Browser, web: Supervisor) -> Page:
    page = await browser.new_page()
    page.set_default_timeout(UI_TIMEOUT_MS)
    await page.goto(web.url + "/")
    return page


async def test_js_computes_the_shared_vectors(browser: Browser, web: Supervisor) -> None:
    v = json.loads(fairness_vectors.PATH.read_text(encoding="utf-8"))
    page = await _page(browser, web)
    try:
        js = await page.evaluate(JS_VECTORS, v)
    finally:
        await page.close()
    want = fairness_vectors.expected(v)
    assert {k: js[k] for k in want} == want
    assert js["opened"] == [{"choice": x["choice"], "nonce": x["nonce"]} for x in v["seals"]]
    assert js["nonces"] == 50  # 32 random bytes each, never repeated
    assert js["verified"] == [[True, False]] * len(v["signatures"])


async def test_js_verifier_agrees_with_python_on_every_lie(
    browser: Browser, web: Supervisor
) -> None:
    cases = tamper.honest() + tamper.cases()
    page = await _page(browser, web)
    try:
        js = await page.evaluate(JS_VERIFY, [{"name": f"{c.game}: {c.name}", "doc": c.doc,
                                              "receipts": c.receipts} for c in cases])
    finally:
        await page.close()
    for case, got in zip(cases, js, strict=True):
        problems, counts = verify(case.doc, case.receipts)
        assert got["problems"] == problems, got["name"]
        assert got["counts"] == counts, got["name"]
        assert got["ok"] is (problems == [])
        if case.cls and not case.rules_only:
            assert any(p.startswith(case.cls + ": ") for p in got["problems"]), got["name"]


async def test_js_verifier_on_a_game_just_played(browser: Browser, web: Supervisor) -> None:
    played = await play_bot_game(web.url, "duel", 3, {"rounds": 3})
    doc: dict[str, Any] = played.record
    page = await _page(browser, web)
    try:
        js = await page.evaluate(JS_VERIFY, [{"name": "played", "doc": doc, "receipts": None}])
    finally:
        await page.close()
    assert played.problems == [] and js[0]["problems"] == []
    assert js[0]["counts"] == played.counts
    assert played.counts["draws"] >= 4 and played.counts["commitments"] >= 9
