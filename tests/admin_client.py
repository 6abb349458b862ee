"""Logging in to the dashboard with the Flask test client (the user is made by ``create_user``)."""
from __future__ import annotations

import re

PASSWORD = "correct horse battery staple"
"""The password every test gives its dashboard users."""


def csrf_token(client, path: str = "/admin/login") -> str:
    """The CSRF token of the form on ``path``."""
    return re.search(r'name="csrf_token" value="([^"]+)"', client.get(path).text).group(1)


def login(client, name: str = "ana", password: str = PASSWORD, next_: str = ""):
    """POST the login form (with its CSRF token); returns the response."""
    return client.post("/admin/login", data={"csrf_token": csrf_token(client), "username": name,
                                             "password": password, "next": next_})
