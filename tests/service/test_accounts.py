"""The lobby's accounts through their store port (no server): sessions, refresh rotation and
reuse, the session cap, passwords and the sign-in lockout, revocation, suspension and
deletion, on tests/support/fakes ``FakeAccountsStore`` (checked against the Redis store in
tests/integration/test_store_contracts.py; tests/integration/test_lobby_accounts.py runs the
same paths against a server)."""

from __future__ import annotations

from typing import Any

import pytest

from services.lobby.accounts.service import Accounts
from services.lobby.tables import LobbyError
from shared.protocol import lobby as lm
from shared.runtime import tokens
from shared.runtime.settings import Settings
from tests.support.fakes import FakeAccountsStore

pytestmark = pytest.mark.service


def accounts(**settings: Any) -> tuple[Accounts, FakeAccountsStore]:
    store = FakeAccountsStore(("duel",))
    return Accounts(Settings(dev=True, **settings), store), store


def guest(store: FakeAccountsStore, pid: str = "p-1", name: str = "Ada") -> dict[str, Any]:
    p = {"player_id": pid, "name": name, "bot": None, "created_ms": 1}
    store.add_player(p, name)
    return p


async def code_of(call: Any) -> str:
    with pytest.raises(LobbyError) as exc:
        await call
    return exc.value.code


async def test_a_session_refreshes_once_per_token_and_reuse_revokes_it() -> None:
    acc, store = accounts()
    first = await acc.open_session(guest(store), "Firefox\n")
    assert first["account"] is False and store.sessions[first["session_id"]]["agent"] == "Firefox"
    who = tokens.verify(Settings(dev=True).token_verify_keys, first["token"], 0)
    assert (who.player_id, who.session) == ("p-1", first["session_id"])
    second = await acc.refresh(lm.Refresh(refresh_token=first["refresh_token"]))
    assert second["session_id"] == first["session_id"]
    assert second["refresh_token"] != first["refresh_token"]
    assert await code_of(acc.refresh(lm.Refresh(refresh_token=first["refresh_token"]))) \
        == "auth/refresh_reused"
    assert store.announced == [first["session_id"]]  # the gateways close its sockets
    assert await code_of(acc.refresh(lm.Refresh(refresh_token=second["refresh_token"]))) \
        == "auth/refresh_invalid"  # the session is gone with the reuse
    assert await code_of(acc.refresh(lm.Refresh(refresh_token="junk"))) \
        == "auth/refresh_invalid"


async def test_signing_in_beyond_the_cap_ends_the_oldest_sessions() -> None:
    acc, store = accounts(sessions_max=2)
    p = guest(store)
    sids = [(await acc.open_session(p, "a"))["session_id"] for _ in range(3)]
    listed = await acc.sessions("p-1", current=sids[2])
    kept = [s["session_id"] for s in listed]
    # the oldest by creation time ended (within one millisecond, ties go by session id)
    assert len(kept) == 2 and len(store.revoked) == 1
    assert set(kept) | store.revoked == set(sids) and store.announced == list(store.revoked)
    assert [s["current"] for s in listed] == [sid == sids[2] for sid in kept]


async def test_a_password_upgrades_the_guest_and_signs_it_in() -> None:
    acc, store = accounts()
    guest(store)
    assert await code_of(acc.set_password(lm.SetPassword(player_id="p-1", password="short"))) \
        == "auth/weak_password"
    out = await acc.set_password(lm.SetPassword(player_id="p-1", password="correct horse"))
    assert out == {"player_id": "p-1", "name": "Ada", "account": True}
    assert "p-1" in store.persistent and store.players["p-1"]["account"] is True
    # changing it needs the current one
    assert await code_of(acc.set_password(lm.SetPassword(player_id="p-1",
                                                         password="another one"))) \
        == "auth/bad_credentials"
    signed = await acc.password_sign_in(lm.PasswordSignIn(name="ADA", password="correct horse"))
    assert signed["player_id"] == "p-1" and signed["account"] is True
    me = await acc.me(lm.Me(player_id="p-1", session=signed["session_id"]))
    assert me["password"] is True and me["passkeys"] == [] and me["admin"] is False


async def test_failed_sign_ins_lock_the_name_out_for_the_window() -> None:
    acc, store = accounts(signin_fail_max=2, signin_fail_window_s=300)
    guest(store)
    await acc.set_password(lm.SetPassword(player_id="p-1", password="correct horse"))
    for _ in range(2):
        assert await code_of(acc.password_sign_in(lm.PasswordSignIn(name="ada",
                                                                    password="wrong one"))) \
            == "auth/bad_credentials"
    assert await code_of(acc.password_sign_in(lm.PasswordSignIn(
        name="Ada", password="correct horse"))) == "auth/rate_limited"
    store.fails.clear()  # the window ended
    await acc.password_sign_in(lm.PasswordSignIn(name="Ada", password="correct horse"))
    # an unknown name and a guest's get the same refusal
    assert await code_of(acc.password_sign_in(lm.PasswordSignIn(name="nobody",
                                                                password="x" * 9))) \
        == "auth/bad_credentials"


async def test_failures_slow_the_address_that_makes_them_not_the_name() -> None:
    """No lockout by strangers: wrong passwords for a name from one address refuse that
    address (even its right password), never the right password from another address."""
    acc, store = accounts(signin_fail_max=3, signin_fail_per_address=5,
                          signin_fail_per_name=6)
    guest(store)
    await acc.set_password(lm.SetPassword(player_id="p-1", password="correct horse"))

    def sign_in(password: str, address: str, name: str = "Ada") -> Any:
        return acc.password_sign_in(lm.PasswordSignIn(name=name, password=password,
                                                      address=address))

    for _ in range(3):
        assert await code_of(sign_in("wrong one", "203.0.113.9")) == "auth/bad_credentials"
    assert await code_of(sign_in("wrong one", "203.0.113.9")) == "auth/rate_limited"
    assert await code_of(sign_in("correct horse", "203.0.113.9")) == "auth/rate_limited"
    assert (await sign_in("correct horse", "192.0.2.1"))["player_id"] == "p-1"
    # per address, whatever the names: two more failures on other names reach 5
    for name in ("bob", "cyd"):
        assert await code_of(sign_in("wrong one", "203.0.113.9", name)) \
            == "auth/bad_credentials"
    assert await code_of(sign_in("wrong one", "203.0.113.9", "dee")) == "auth/rate_limited"
    # per name from any address (6): the addresses that failed for it wait, no other
    for address in ("198.51.100.1", "198.51.100.2", "198.51.100.3"):
        assert await code_of(sign_in("wrong one", address)) == "auth/bad_credentials"
    assert await code_of(sign_in("correct horse", "198.51.100.1")) == "auth/rate_limited"
    assert (await sign_in("correct horse", "192.0.2.2"))["player_id"] == "p-1"


async def test_revoking_own_sessions_only() -> None:
    acc, store = accounts()
    mine = await acc.open_session(guest(store), "a")
    theirs = await acc.open_session(guest(store, "p-2", "Bob"), "b")
    assert await code_of(acc.revoke_own("p-1", theirs["session_id"])) == "lobby/not_found"
    assert await acc.revoke_own("p-1", mine["session_id"]) == {"revoked": mine["session_id"]}
    assert store.announced == [mine["session_id"]]
    assert await acc.sessions("p-1", "") == []


async def test_suspension_revokes_every_session_and_refuses_refresh() -> None:
    acc, store = accounts()
    p = guest(store)
    first = await acc.open_session(p, "a")
    await acc.open_session(p, "b")
    out = await acc.suspend("p-1", "spam", True)
    assert out == {"player_id": "p-1", "suspended": True, "sessions_revoked": 2}
    assert await acc.is_suspended("p-1")
    assert await code_of(acc.refresh(lm.Refresh(refresh_token=first["refresh_token"]))) \
        == "auth/refresh_invalid"
    assert (await acc.suspend("p-1", "", False))["sessions_revoked"] == 0
    assert not await acc.is_suspended("p-1")


async def test_deleting_a_player_frees_its_name_and_erases_its_scores() -> None:
    acc, store = accounts()
    p = guest(store)
    s = await acc.open_session(p, "a")
    store.scores["duel"] |= {"p-1", "p-2"}
    assert await code_of(acc.delete(lm.DeleteAccount(player_id="p-1", confirm="ada"))) \
        == "lobby/bad_request"
    assert await acc.delete(lm.DeleteAccount(player_id="p-1", confirm="Ada")) \
        == {"deleted": "p-1"}
    assert "p-1" in store.erased and store.scores["duel"] == {"p-2"}
    assert await store.pid_of_name("Ada") is None and s["session_id"] in store.revoked
    assert await code_of(acc.me(lm.Me(player_id="p-1", session=""))) == "auth/revoked_session"
