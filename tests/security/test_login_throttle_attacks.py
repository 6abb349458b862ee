"""Attack suite, the dashboard's login throttle: guesses spread over addresses, IPv6 rotation, proxies.

The throttle counted per address only (5 a minute per address and user name, 20 per address): 20
guesses on one account from 4 addresses in a minute went through, an IPv6 client rotated through its
/64, and behind the prescribed reverse proxy every client had the proxy's address, so 20 bad requests
a minute from anyone locked every researcher out. Now there is a per-account limit that a browser the
owner logged in from before is exempt from, IPv6 addresses count per /64, and ``DA_TRUSTED_PROXIES``
makes the app take the client's address from the proxy's ``X-Forwarded-For``. The throttle keeps no
state in the database, so SQLite only.
"""
from __future__ import annotations

import pytest

from da_platform.config.accounts import create_user
from da_platform.config.settings import Settings, SettingsError
from da_platform.web.admin.devices import COOKIE
from da_platform.web.proxies import forwarded_address
from tests.admin_client import PASSWORD, csrf_token
from tests.web_factories import make_web_env

SQLITE = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)

WRONG = "Winter2026!"
# Smaller limits than the defaults (5 per address and name, 20 per address, 10 per account a minute):
# each checked password costs a scrypt hash, so fewer attempts keep the tests fast.
SMALL = {"ADMIN_LOGIN_LIMIT": "3 per minute", "ADMIN_LOGIN_ADDRESS_LIMIT": "6 per minute",
         "ADMIN_LOGIN_ACCOUNT_LIMIT": "4 per minute"}


def make_env(database_url, tmp_path, **config):
    env = make_web_env(database_url, tmp_path, **config)
    with env.sessions.begin() as session:
        for name in ("ana", "bea"):
            create_user(session, name, PASSWORD)
    return env


def attempt(client, name: str, password: str, address: str = "127.0.0.1", forwarded: str | None = None):
    """One login POST from ``address`` (the TCP peer), with ``X-Forwarded-For: forwarded`` if given."""
    headers = {"X-Forwarded-For": forwarded} if forwarded else {}
    token = csrf_token(client)
    return client.post("/admin/login", data={"csrf_token": token, "username": name, "password": password},
                       environ_base={"REMOTE_ADDR": address}, headers=headers)


@SQLITE
def test_guesses_on_one_account_from_many_addresses_are_throttled(database_url, tmp_path):
    """20 guesses from 4 addresses (5 each: under every per-address limit): at most 10 are checked."""
    env = make_env(database_url, tmp_path)
    client = env.app.test_client()
    answers = [attempt(client, "ana", WRONG, f"198.51.100.{1 + i // 5}").status_code for i in range(20)]
    assert answers.count(401) == 10 and answers.count(429) == 10, answers
    assert attempt(client, "bea", PASSWORD, "203.0.113.9").status_code == 303  # other accounts are not affected


@SQLITE
def test_the_owner_is_not_locked_out_by_guesses_from_elsewhere(database_url, tmp_path):
    env = make_env(database_url, tmp_path, **SMALL)
    owner = env.app.test_client()
    assert attempt(owner, "ana", PASSWORD, "203.0.113.9").status_code == 303  # her browser, known from now on
    assert owner.get_cookie(COOKIE, path="/admin") is not None
    owner.post("/admin/logout", data={"csrf_token": csrf_token(owner, "/admin/")})
    attacker = env.app.test_client()
    for i in range(6):
        attempt(attacker, "ana", WRONG, f"198.51.100.{i}")
    assert attempt(attacker, "ana", PASSWORD, "198.51.100.99").status_code == 429  # even the right password
    stranger = env.app.test_client()  # a browser that never logged in as ana: throttled with the account
    refused = attempt(stranger, "ana", PASSWORD, "203.0.113.50")
    assert refused.status_code == 429 and "browser you have used" in refused.text
    assert attempt(owner, "ana", PASSWORD, "203.0.113.9").status_code == 303  # the owner's browser gets in
    copied = env.app.test_client()  # a copy of her cookie: guessing from it is limited as from her browser
    copied.set_cookie(COOKIE, owner.get_cookie(COOKIE, path="/admin").value, path="/admin")
    answers = [attempt(copied, "ana", WRONG, "198.51.100.200").status_code for _ in range(4)]
    assert answers == [401] * 3 + [429]  # a known browser still has its own limit (3 a minute here)


@SQLITE
def test_an_ipv6_client_cannot_rotate_through_its_64(database_url, tmp_path):
    env = make_env(database_url, tmp_path, **SMALL)
    client = env.app.test_client()
    answers = [attempt(client, f"user{i}", WRONG, f"2001:db8:1:2::{i + 1:x}").status_code for i in range(7)]
    assert answers == [401] * 6 + [429]  # 6 a minute per address here: the /64 is one address
    assert attempt(client, "ana", PASSWORD, "2001:db8:1:3::1").status_code == 303  # the next /64 is another


@SQLITE
def test_behind_a_trusted_proxy_each_client_counts_by_its_own_address(database_url, tmp_path):
    """Every request comes from the proxy (127.0.0.1); the attacker's bad requests do not lock ana out."""
    env = make_env(database_url, tmp_path, TRUSTED_PROXIES=1, **SMALL)
    attacker, owner = env.app.test_client(), env.app.test_client()
    for i in range(6):  # spraying: one password, many names; a forged entry left of the proxy's is ignored
        attempt(attacker, f"user{i}", WRONG, forwarded=f"10.9.8.{i}, 198.51.100.7")
    assert attempt(attacker, "user99", WRONG, forwarded="198.51.100.7").status_code == 429
    assert attempt(owner, "ana", PASSWORD, forwarded="203.0.113.9").status_code == 303


@SQLITE
@pytest.mark.parametrize("entries", [
    [f"198.51.100.7:{40000 + i}" for i in range(7)],  # a load balancer that writes the client's port
    [f"[2001:db8:1:2::7]:{443 + i}" for i in range(7)],
    [f"unknown-{i}" for i in range(7)],  # text that names no address
    ["unknown", "_hidden", "198.51.100.7:99999", "[198.51.100.7]:80", "2001:db8::zz", "", "1.2.3"],
], ids=["v4-port", "v6-port", "text", "mixed"])
def test_behind_a_trusted_proxy_an_entry_with_a_port_or_text_is_no_new_address(database_url, tmp_path, entries):
    """Spraying, one password over many names: each entry once counted as a new address, so all 7
    guesses were checked where the limit per address is 6 here. Now an entry with a port counts as its
    address, and text that names no address as the proxy's own address (the TCP peer)."""
    env = make_env(database_url, tmp_path, TRUSTED_PROXIES=1, **SMALL)
    attacker, owner = env.app.test_client(), env.app.test_client()
    answers = [attempt(attacker, f"user{i}", WRONG, forwarded=entry).status_code for i, entry in enumerate(entries)]
    assert answers == [401] * 6 + [429]
    assert attempt(owner, "ana", PASSWORD, forwarded="203.0.113.9:5555").status_code == 303  # ana is not locked out


@pytest.mark.parametrize(("entry", "address"), [
    ("198.51.100.7", "198.51.100.7"), (" 198.51.100.7 ", "198.51.100.7"), ("198.51.100.7:0", "198.51.100.7"),
    ("198.51.100.7:65535", "198.51.100.7"), ("2001:db8::7", "2001:db8::7"), ("[2001:db8::7]", "2001:db8::7"),
    ("[2001:db8::7]:8080", "2001:db8::7"), ("fe80::1%eth0", "fe80::1"), ("[fe80::1%eth0]:80", "fe80::1"),
    ("::ffff:198.51.100.7", "::ffff:c633:6407"),
    ("198.51.100.7:65536", None), ("198.51.100.7:", None), ("198.51.100.7:80:80", None), ("[198.51.100.7]", None),
    ("2001:db8::7]:80", None), ("[2001:db8::7", None), ("198.51.100.256", None), ("unknown", None),
    ("_obfuscated", None), ("example.org", None), ("example.org:80", None), ("", None), (None, None),
    ("198.51.100.7:８０", None), ("198.51.100.7 :80", None),
])
def test_a_forwarded_entry_names_an_address_only_in_the_forms_proxies_write(entry, address):
    parsed = forwarded_address(entry)
    assert (None if parsed is None else str(parsed)) == address


@SQLITE
def test_without_trusted_proxies_a_forwarded_header_is_ignored(database_url, tmp_path):
    env = make_env(database_url, tmp_path, **SMALL)
    client = env.app.test_client()
    answers = [attempt(client, f"user{i}", WRONG, forwarded=f"198.51.100.{i}").status_code for i in range(7)]
    assert answers[-1] == 429  # a client cannot pick a new address per request


@pytest.mark.parametrize("value", ["-1", "one", "11", "1.5"])
def test_trusted_proxies_must_be_a_small_number(value, tmp_path):
    with pytest.raises(SettingsError, match="DA_TRUSTED_PROXIES"):
        Settings.from_environ({"DA_TRUSTED_PROXIES": value}, start=tmp_path)
    assert Settings.from_environ({"DA_TRUSTED_PROXIES": "2"}, start=tmp_path).trusted_proxies == 2
