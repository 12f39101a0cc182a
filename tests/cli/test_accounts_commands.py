"""The host's account commands (docs/accounts.md, "What the host controls"): ``invites add``
prints a code good for its uses until it expires, ``accounts list|disable|enable|make-admin``,
``bots attach``; errors are one line."""

from __future__ import annotations

import re

import pytest
from arbiter.cli import main
from arbiter.security.passwords import hash_password
from arbiter.store import SqlStore, StoreError
from click.testing import CliRunner


@pytest.fixture
def database(tmp_path):
    url = f"sqlite:///{tmp_path / 'arbiter.db'}"
    store = SqlStore(url)
    store.upgrade()
    store.close()
    return url


def run(database: str, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, [*args, "--database", database])
    return result.exit_code, result.output


def code_of(output: str) -> str:
    found = re.search(r"\): (\S+)$", output.strip())
    assert found is not None, output
    return found.group(1)


def test_invites_add_prints_a_code_with_its_uses_and_expiry(database):
    code, output = run(database, "invites", "add", "--uses", "2", "--expires-in", "3600")
    assert code == 0 and "2 uses, expires " in output
    invite = code_of(output)
    store = SqlStore(database)
    for name in ("alice", "bob"):
        store.add_account(name, hash_password("a long password"), invite)
    with pytest.raises(StoreError, match="unknown, used up or expired"):
        store.add_account("carol", hash_password("a long password"), invite)
    store.close()
    code, output = run(database, "invites", "add", "--expires", "2999-01-31T12:00Z")
    assert code == 0 and "1 use, expires 2999-01-31 12:00:00 UTC" in output


def test_invites_add_refuses_bad_expiries(database):
    assert run(database, "invites", "add", "--expires", "tomorrow")[0] == 2
    assert run(database, "invites", "add", "--expires", "2999-01-01", "--expires-in", "5")[0] == 2
    code, output = run(database, "invites", "add", "--expires", "2001-01-01T00:00Z")
    assert code == 1 and output.strip() == "error: the invite would have expired already"
    assert run(database, "invites", "add", "--uses", "0")[0] == 2


def test_accounts_list_disable_enable_make_admin_and_bots_attach(database):
    store = SqlStore(database)
    store.add_account("alice", hash_password("a long password"))
    store.close()
    assert run(database, "bots", "add", "old-bot", "--owner", "Alice A.")[0] == 0
    code, output = run(database, "bots", "attach", "old-bot", "--account", "alice")
    assert (code, output.strip()) == (0, "bot old-bot belongs to account alice")
    assert run(database, "accounts", "make-admin", "alice") == (0, "account alice is an admin\n")
    assert run(database, "accounts", "disable", "alice") == (0, "account alice disabled\n")
    code, output = run(database, "accounts", "list")
    lines = output.strip().splitlines()
    assert code == 0 and lines[0].split() == ["account", "status", "admin", "bots", "created"]
    assert lines[1].split()[:4] == ["alice", "DISABLED", "yes", "1"]
    store = SqlStore(database)
    assert store.account_bots(store.list_accounts()[0].id)[0].owner == "Alice A."  # its owner text stays
    assert not store.credentials(["old-bot"])["old-bot"].enabled
    store.close()
    assert run(database, "accounts", "enable", "alice") == (0, "account alice enabled\n")
    assert run(database, "accounts", "list")[1].strip().splitlines()[1].split()[1] == "enabled"


def test_the_commands_name_what_does_not_exist(database):
    assert run(database, "accounts", "list") == (
        0,
        "no accounts yet: owners sign up on the web pages (arbiter invites add makes a code)\n",
    )
    for args in (
        ("accounts", "disable", "nobody"),
        ("accounts", "enable", "nobody"),
        ("accounts", "make-admin", "nobody"),
    ):
        assert run(database, *args) == (1, "error: no account named 'nobody'\n")
    assert run(database, "bots", "attach", "ghost", "--account", "nobody") == (
        1,
        "error: no bot named 'ghost'\n",
    )
    run(database, "bots", "add", "real")
    assert run(database, "bots", "attach", "real", "--account", "nobody") == (
        1,
        "error: no account named 'nobody'\n",
    )


def test_serve_and_web_take_the_account_options():
    for command in (["serve", "--help"], ["web", "--help"]):
        output = CliRunner().invoke(main, command).output
        assert "--signup [open|invite|closed]" in output and "--web-secret-file PATH" in output


def test_a_short_secret_file_is_refused(database, tmp_path):
    short = tmp_path / "secret"
    short.write_bytes(b"too short")
    result = CliRunner().invoke(
        main, ["web", "--database", database, "--port", "0", "--web-secret-file", str(short)]
    )
    assert result.exit_code == 2 and "a key is at least 32" in result.output
