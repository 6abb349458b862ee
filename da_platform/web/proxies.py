"""Who the client is behind reverse proxies: ``DA_TRUSTED_PROXIES`` and werkzeug's ``ProxyFix``.

Behind the reverse proxy that docs/deploy.md prescribes, every request comes from the proxy's address,
so anything counted per address (the dashboard's login throttle) would count every client together:
twenty bad passwords a minute from anyone would lock every researcher out. With
``DA_TRUSTED_PROXIES=N`` (the number of proxies in front of the app, each appending the address it
got the request from to ``X-Forwarded-For``) the app takes the client's address from the N-th entry
from the right, which the first proxy wrote; entries further left came from the client and are
ignored, so a client cannot choose its address. ``X-Forwarded-Proto`` is trusted likewise. With 0
(the default: the app is reached directly) the headers are ignored.

That entry is parsed strictly (:func:`forwarded_address`): an IPv4 or IPv6 address, also with a port as
some load balancers write it (``203.0.113.7:51234``, ``[2001:db8::1]:443``, ``[2001:db8::1]``), is that
address, whatever the port; anything else (``unknown``, a name, garbage) is no address, and the request
keeps the address it came from (the nearest proxy's), as when the header is missing. So a client that
reaches the proxy from new ports, or gets text of its choosing into the entry, never counts as a new
address: all such requests count together, under the proxy's address, and are logged once.

:func:`client_network` is what a per-address limit counts: an IPv4 address, or an IPv6 address's
/64 (one subscriber's network: a client can rotate through its addresses at will).
"""
from __future__ import annotations

import ipaddress
import logging
import re
import typing as t

from flask import Flask, Request
from werkzeug.middleware.proxy_fix import ProxyFix

if t.TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

log = logging.getLogger(__name__)

# "[v6]" or "[v6]:port", and "v4:port": the forms with a port that proxies and load balancers write.
_BRACKETED = re.compile(r"\[([^\[\]]+)\](?::(\d{1,5}))?", re.ASCII)
_V4_WITH_PORT = re.compile(r"([0-9.]+):(\d{1,5})", re.ASCII)


def init_proxies(app: Flask) -> None:
    """Wrap the app in ``ProxyFix`` (around :class:`StrictClientAddress`) for ``TRUSTED_PROXIES``
    proxies (none: unchanged)."""
    count = int(app.config.get("TRUSTED_PROXIES") or 0)
    if count:
        # Flask's stubs declare wsgi_app a method, not an attribute one may wrap (as Flask's docs do).
        app.wsgi_app = ProxyFix(StrictClientAddress(app.wsgi_app),  # type: ignore[method-assign]
                                x_for=count, x_proto=count)


def forwarded_address(entry: str | None) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The address an ``X-Forwarded-For`` entry names, or None if it names none.

    An IPv4 or IPv6 address (an IPv6 zone such as ``%eth0`` dropped), ``v4:port``, ``[v6]`` and
    ``[v6]:port`` (port 0 to 65535) name their address; anything else, an IPv6 address with a port
    but no brackets included, names none.
    """
    text = (entry or "").strip()
    port = None
    bracketed = _BRACKETED.fullmatch(text)
    with_port = _V4_WITH_PORT.fullmatch(text)
    if bracketed:
        text, port = bracketed.group(1), bracketed.group(2)
    elif with_port:
        text, port = with_port.group(1), with_port.group(2)
    if port is not None and int(port) > 65535:
        return None
    try:
        address = ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return None
    if bracketed and not isinstance(address, ipaddress.IPv6Address):
        return None  # brackets are for IPv6 only
    return address


class StrictClientAddress:
    """WSGI middleware inside ``ProxyFix``: the client address it set is made an address, the
    :func:`forwarded_address` of the entry (its port dropped), or, when the entry names no address, the
    address the request came from (the nearest proxy's, which ``ProxyFix`` keeps)."""

    def __init__(self, app: WSGIApplication) -> None:
        self.app = app
        self._logged = False

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> t.Iterable[bytes]:
        entry = environ.get("REMOTE_ADDR")
        address = forwarded_address(entry)
        if address is not None:
            environ["REMOTE_ADDR"] = str(address)
        else:
            peer = environ.get("werkzeug.proxy_fix.orig", {}).get("REMOTE_ADDR")
            if peer != entry:
                environ["REMOTE_ADDR"] = peer
                self._log_once(str(entry), peer)
        return self.app(environ, start_response)

    def _log_once(self, entry: str, peer: str | None) -> None:
        if not self._logged:
            self._logged = True
            log.warning("an X-Forwarded-For entry names no address (%r): such requests count as the proxy's "
                        "address %s for the login throttle (da_platform/web/proxies.py)", entry[:100], peer)


def client_network(address: str | None) -> str:
    """The network a request's address counts under: the IPv4 address itself, the /64 of an IPv6
    address (an IPv4-mapped one as its IPv4 address); anything else as given."""
    try:
        ip = ipaddress.ip_address((address or "").split("%", 1)[0])
    except ValueError:
        return str(address)
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def warn_if_forwarded_untrusted(app: Flask, request: Request) -> None:
    """Log once per app when a request carries ``X-Forwarded-For`` but no proxy is trusted: behind a
    proxy, every client then counts as the proxy's address (set ``DA_TRUSTED_PROXIES``)."""
    if app.config.get("TRUSTED_PROXIES") or "X-Forwarded-For" not in request.headers:
        return
    if app.extensions.setdefault("da_untrusted_forwarding_logged", False):
        return
    app.extensions["da_untrusted_forwarding_logged"] = True
    log.warning("requests carry X-Forwarded-For but DA_TRUSTED_PROXIES is 0: every client behind the proxy "
                "counts as %s for the login throttle; set DA_TRUSTED_PROXIES to the number of proxies in "
                "front of the app (docs/deploy.md)", request.remote_addr)
