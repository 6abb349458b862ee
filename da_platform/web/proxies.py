"""Who the client is behind reverse proxies: ``DA_TRUSTED_PROXIES`` and werkzeug's ``ProxyFix``.

Behind the reverse proxy that docs/deploy.md prescribes, every request comes from the proxy's address,
so anything counted per address (the dashboard's login throttle) would count every client together:
twenty bad passwords a minute from anyone would lock every researcher out. With
``DA_TRUSTED_PROXIES=N`` (the number of proxies in front of the app, each appending the address it
got the request from to ``X-Forwarded-For``) the app takes the client's address from the N-th entry
from the right, which the first proxy wrote; entries further left came from the client and are
ignored, so a client cannot choose its address. ``X-Forwarded-Proto`` is trusted likewise. With 0
(the default: the app is reached directly) the headers are ignored.

:func:`client_network` is what a per-address limit counts: an IPv4 address, or an IPv6 address's
/64 (one subscriber's network: a client can rotate through its addresses at will).
"""
from __future__ import annotations

import ipaddress
import logging

from flask import Flask, Request

log = logging.getLogger(__name__)


def init_proxies(app: Flask) -> None:
    """Wrap the app in ``ProxyFix`` for ``TRUSTED_PROXIES`` proxies (none: unchanged)."""
    count = int(app.config.get("TRUSTED_PROXIES") or 0)
    if count:
        from werkzeug.middleware.proxy_fix import ProxyFix

        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=count, x_proto=count)  # type: ignore[method-assign]


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
