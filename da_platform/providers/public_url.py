"""Checks that a URL handed to a provider can be reached by workers on the internet over HTTPS."""
from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit


def require_public_https(url: str, *, what: str = "worker URL") -> str:
    """Return ``url`` if it is an absolute HTTPS URL on a public host, else raise ``ValueError``.

    MTurk only frames HTTPS pages and neither provider can reach localhost or a private network,
    so set DA_PUBLIC_URL to the HTTPS address the platform is served at (behind a proxy).
    """
    parts = urlsplit(url)
    hint = "set DA_PUBLIC_URL to the public HTTPS address of the platform, e.g. https://da.example.org"
    if parts.scheme != "https":
        raise ValueError(f"{what} {url!r} is not HTTPS; {hint}")
    host = (parts.hostname or "").lower()
    if not host:
        raise ValueError(f"{what} {url!r} has no host name; {hint}")
    if host == "localhost" or host.endswith((".localhost", ".local", ".internal")) or "." not in host:
        raise ValueError(f"{what} {url!r} points at a local host workers cannot reach; {hint}")
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return url
    if not address.is_global:
        raise ValueError(f"{what} {url!r} points at a non-public address ({address}); {hint}")
    return url
