"""The accounts' rules (services/lobby/accounts/core.py), pure: passwords, names and admins,
the sign-in lockout, session lifetimes and refresh outcomes, a guest's upgrade, the wire
answers and the passkey helpers."""

from __future__ import annotations

import pytest

from services.lobby.accounts import core
from services.lobby.tables import LobbyError
from shared.identity import handles

pytestmark = pytest.mark.unit

GUEST = {"player_id": "p-1", "name": "Ada", "bot": None, "created_ms": 5}
ACCOUNT = {**GUEST, "account": True, "account_ms": 9}


def code(exc: pytest.ExceptionInfo[LobbyError]) -> str:
    return exc.value.code


def test_a_new_password_is_long_enough_short_enough_and_not_the_name() -> None:
    core.check_new_password("x" * core.MIN_PASSWORD, "Ada")
    core.check_new_password("x" * core.MAX_PASSWORD, "Ada")
    for bad in ("x" * (core.MIN_PASSWORD - 1), "x" * (core.MAX_PASSWORD + 1), ""):
        with pytest.raises(LobbyError) as exc:
            core.check_new_password(bad, "Ada")
        assert code(exc) == "auth/weak_password"
    with pytest.raises(LobbyError, match="may not be the name"):
        core.check_new_password("ADALOVELACE", "AdaLovelace")


def test_failures_count_under_the_names_key_or_the_text_as_typed() -> None:
    assert core.failure_subject("Ada") == core.failure_subject("ADA") == handles.key("Ada")
    assert core.failure_subject("") == ""
    bad = "\u0000" * 3
    assert not core.valid_name(bad) and core.failure_subject(bad) == bad
    assert core.normal_name(bad) is None and core.normal_name(" Ada ") == handles.normalize("Ada")


def test_the_lockout_starts_at_the_limit() -> None:
    assert not core.locked_out(None, 5)
    assert not core.locked_out(4, 5)
    assert core.locked_out(5, 5) and core.locked_out(6, 5)
    err = core.lockout_error(0)  # a window that ends now still says at least 1 s
    assert err.code == "auth/rate_limited" and "retry in 1 s" in str(err)
    assert "retry in 40 s" in str(core.lockout_error(40))


def test_a_failed_sign_in_says_the_same_whatever_failed() -> None:
    err = core.bad_credentials()
    assert (err.code, str(err)) == ("auth/bad_credentials", core.BAD_CREDENTIALS)


def test_admins_by_id_or_by_an_accounts_name() -> None:
    assert core.is_admin(GUEST, ["p-1"])
    assert not core.is_admin(GUEST, ["ada"])  # a guest's name does not make it an admin
    assert core.is_admin(ACCOUNT, ["ADA"])
    assert not core.is_admin({**ACCOUNT, "bot": "heuristic"}, ["ada"])
    assert not core.is_admin(None, ["p-1"]) and not core.is_admin(ACCOUNT, [])


def test_known_players_and_suspension() -> None:
    assert core.check_known(dict(ACCOUNT)) == ACCOUNT
    for nobody in (None, {**GUEST, "bot": "random"}):
        with pytest.raises(LobbyError) as exc:
            core.check_known(nobody)
        assert code(exc) == "auth/revoked_session"
    core.check_not_suspended(ACCOUNT)
    with pytest.raises(LobbyError) as exc:
        core.check_not_suspended(core.suspended(dict(ACCOUNT), "spam", True))
    assert code(exc) == "auth/suspended"
    on = core.suspended(dict(ACCOUNT), "spam", True)
    assert (on["suspended"], on["suspended_reason"]) == (True, "spam")
    off = core.suspended(on, "spam", False)
    assert (off["suspended"], off["suspended_reason"]) == (False, "")


def test_a_guest_session_lives_no_longer_than_the_guest() -> None:
    assert core.session_ttl_s(ACCOUNT, 3_000, 100) == 3_000
    assert core.session_ttl_s(GUEST, 3_000, 100) == 100
    assert core.session_ttl_s(GUEST, 50, 100) == 50
    assert core.session_key_expiry_ms(1_000, 10, "s-1", 99) == 11_000
    assert core.session_key_expiry_ms(1_000, 10, None, 99) == 99  # a seat token's own expiry


def test_refresh_tokens_and_what_a_rotation_means() -> None:
    assert core.split_refresh_token("sid.secret.with.dots") == ("sid", "secret.with.dots")
    for bad in ("", "sid", "sid.", ".secret", "s" * 65 + ".x"):
        with pytest.raises(LobbyError) as exc:
            core.split_refresh_token(bad)
        assert code(exc) == "auth/refresh_invalid"
    assert core.Rotation("ok", "p-1").check() == "p-1"
    assert not core.Rotation("ok", "p-1").revoke
    reused = core.Rotation("reused", "p-1")
    assert reused.revoke
    with pytest.raises(LobbyError) as exc:
        reused.check()
    assert code(exc) == "auth/refresh_reused"
    for status in ("gone", "invalid"):
        assert not core.Rotation(status).revoke
        with pytest.raises(LobbyError) as exc:
            core.Rotation(status).check()
        assert code(exc) == "auth/refresh_invalid"


def test_the_session_answer_and_the_session_list() -> None:
    out = core.session_answer(GUEST, "s-1", "secret", "tok", 77)
    assert out == {"player_id": "p-1", "name": "Ada", "token": "tok", "access_expires_ms": 77,
                   "refresh_token": "s-1.secret", "session_id": "s-1", "account": False}
    assert core.session_answer(ACCOUNT, "s", "x", "t", 1)["account"] is True
    rows = [{"created_ms": "1", "used_ms": "2", "agent": "Firefox"}, {},
            {"created_ms": "3", "used_ms": "4"}]
    listed, gone = core.session_list(["a", "b", "c"], rows, current="c")
    assert gone == ["b"]
    assert listed == [
        {"session_id": "a", "created_ms": 1, "used_ms": 2, "agent": "Firefox",
         "current": False},
        {"session_id": "c", "created_ms": 3, "used_ms": 4, "agent": "", "current": True}]


def test_agents_are_printable_and_short() -> None:
    assert core.agent("Mozilla\n\x00/5.0") == "Mozilla/5.0"
    assert core.agent("x" * 200) == "x" * 80


def test_a_guest_is_upgraded_in_place_once() -> None:
    up = core.upgraded(dict(GUEST), 42)
    assert up == {**GUEST, "account": True, "account_ms": 42}
    assert core.upgraded(up, 99) is up  # already an account: unchanged


def test_deletion_is_confirmed_with_the_exact_name() -> None:
    core.check_deletion(ACCOUNT, "Ada")
    with pytest.raises(LobbyError) as exc:
        core.check_deletion(ACCOUNT, "ada")
    assert code(exc) == "lobby/bad_request"


def test_me_and_the_export_profile() -> None:
    pks = {"c1": {"label": "phone", "created_ms": 1, "used_ms": 2, "public_key": "k"}}
    me = core.me_answer(ACCOUNT, True, pks, False, "s-1")
    assert me == {"player_id": "p-1", "name": "Ada", "account": True, "password": True,
                  "passkeys": [{"credential_id": "c1", "label": "phone", "created_ms": 1,
                                "used_ms": 2}],
                  "admin": False, "session_id": "s-1", "created_ms": 5}
    full = {**ACCOUNT, "suspended": False, "suspended_reason": "", "bot": None, "x": 1}
    assert core.profile(full) == {"player_id": "p-1", "name": "Ada", "created_ms": 5,
                                  "account": True, "account_ms": 9, "suspended": False}


def test_challenges_are_of_one_kind_for_one_player() -> None:
    data = core.challenge_data("register", "p-1", b"\x01\x02\xff")
    assert core.challenge_of(data, "register", "p-1") == b"\x01\x02\xff"
    for kind, pid, stored in (("sign_in", "p-1", data), ("register", "p-2", data),
                              ("register", "p-1", None), ("register", "p-1", {})):
        with pytest.raises(LobbyError) as exc:
            core.challenge_of(stored, kind, pid)
        assert code(exc) == "auth/bad_challenge"


def test_passkey_helpers() -> None:
    assert core.unb64url(core.b64url(b"\x00\xfe\xff")) == b"\x00\xfe\xff"
    assert "=" not in core.b64url(b"\x00")
    assert core.passkey_lookup_id({"id": "abc"}) == "abc"
    for cred in ({}, {"id": ""}, {"id": 5}, {"id": "x" * (core.MAX_CREDENTIAL_ID + 1)}):
        assert core.passkey_lookup_id(cred) is None
    pk = core.new_passkey(b"\x01", 3, 100, None)
    assert pk == {"public_key": "AQ", "sign_count": 3, "created_ms": 100, "used_ms": 0,
                  "label": "passkey"}
    assert core.passkey_used(pk, 4, 200) == {**pk, "sign_count": 4, "used_ms": 200}
    assert "did not verify: boom" in str(core.passkey_failed(ValueError("boom")))


def test_the_user_handle_must_name_the_passkeys_player() -> None:
    def cred(handle: object) -> dict[str, object]:
        return {"response": {"userHandle": handle}}

    assert core.user_handle({}) is None and core.user_handle(cred("")) is None
    assert core.user_handle(cred(core.b64url(b"p-1"))) == b"p-1"
    core.check_user_handle(cred(core.b64url(b"p-1")), "p-1")
    core.check_user_handle({}, "p-1")  # an authenticator that names nobody
    with pytest.raises(LobbyError) as exc:
        core.check_user_handle(cred(core.b64url(b"p-2")), "p-1")
    assert code(exc) == "auth/passkey_failed"
