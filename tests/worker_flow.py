"""The worker flow over the Flask test client, step by step: arrive, read the current slot, rate, and
compare the database before and after (the web tests and the attack suite share these)."""
from __future__ import annotations

import re
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from sqlalchemy import select, text, update

from da_platform.db.models import Assignment, Rating, utcnow
from da_platform.providers.pool.arrival import mint_invites
from tests.web_factories import WebEnv

FAKE_TURK = "http://127.0.0.1:9"  # allow-listed for these tests; nothing is ever sent there


def snapshot(env: WebEnv) -> tuple:
    """Everything a worker could change, as plain tuples."""
    with env.sessions() as s:
        tables = []
        for table in ("rating", "assignment", "worker"):
            rows = s.execute(text(f"SELECT * FROM {table} ORDER BY id")).all()
            tables.append([tuple(r) for r in rows])
        return tuple(tables)


def tokens(env: WebEnv):
    return env.app.extensions["da_platform"].tokens


def assignment_of(env: WebEnv, base: str) -> str:
    """The assignment public id inside a /a/<t>/ path."""
    return tokens(env).read_assignment(base.split("/")[2])


def arrive_pool(env: WebEnv, client, campaign_id: int) -> str:
    """Follow a fresh invite link; returns the assignment's base path /a/<t>/."""
    link = mint_invites(tokens(env), "http://127.0.0.1", campaign_id, 1, 1)[0]
    response = client.get(urlsplit(link).path)
    assert response.status_code == 303, response.text
    return response.location


def arrive_at_new_hit(env: WebEnv, **campaign) -> tuple[object, str]:
    """A new campaign (``env.campaign(**campaign)``) and a pool worker who has just arrived at it: the
    worker's test client and the assignment's base path /a/<t>/."""
    made = env.campaign(**campaign)
    client = env.app.test_client()
    return client, arrive_pool(env, client, made.campaign_id)


def current(client, base: str) -> tuple[str, str]:
    """The current slot's public id, and the page."""
    page = client.get(base + "slot")
    assert page.status_code == 200, page.text
    return re.search(r'name="slot" value="([^"]+)"', page.text).group(1), page.text


def rate(client, base: str, slot: str, score, via: str = "slot") -> object:
    """POST a rating: ``via="slot"`` is the plain form (303), ``via="rating"`` the page script's JSON call."""
    data = {"slot": slot} if score is None else {"slot": slot, "score": str(score)}
    return client.post(base + via, data=data)


def accepted(response) -> bool:
    """The rating was taken: a 303 to the next slot (form), or a 200 with what comes next (JSON)."""
    if response.status_code == 303:
        return response.location.endswith("/slot")
    return response.status_code == 200 and response.is_json and ("screen" in response.json or "done" in response.json)


def refused_as_late(client, base: str, slot: str, score: int, via: str) -> bool:
    """A rating past the HIT's time limit is refused as late (409, saying the time ran out), and the slot page
    then says time is up (410)."""
    late = rate(client, base, slot, score, via)
    said = late.text if via == "slot" else late.json["error"]
    page = client.get(base + "slot")
    return (late.status_code == 409 and "time for this task ran out" in said
            and page.status_code == 410 and "Time is up" in page.text)


# Every attack is tried on both ways of posting a rating.
via = pytest.mark.parametrize("via", ["slot", "rating"])


def ratings(env: WebEnv) -> list[Rating]:
    with env.sessions() as s:
        return list(s.scalars(select(Rating).order_by(Rating.id)))


def age_assignments(env: WebEnv, minutes: float, source: str = "pool") -> None:
    """Pretend the ``source`` assignments started ``minutes`` ago."""
    with env.sessions() as s:
        s.execute(update(Assignment).where(Assignment.source == source)
                  .values(started_at=utcnow() - timedelta(minutes=minutes)))
        s.commit()


def chinese(message: str) -> str:
    """The shipped zh-Hans translation of a worker-page message (checked to hold no English)."""
    from babel.messages.pofile import read_po

    from da_platform.rating.language import SHIPPED

    with open(SHIPPED["zh-Hans"], "rb") as handle:
        translation = read_po(handle)[message].string
    assert translation and not re.search(r"[A-Za-z]{3,}", translation)
    return translation


def chinese_worker(env: WebEnv) -> tuple[object, str]:
    """A zh-Hans campaign built by the builder (images in ``env.storage``) and a pool worker on its first
    item: the worker's client and the assignment's base path."""
    from da_platform.building.build import BuildSpec, build_campaign
    from da_platform.db.models import CampaignStatus
    from da_platform.simulation.showcase import make_showcase
    from hit_builder.worker_settings import WorkerPageOptions

    with env.sessions() as session:
        test_set = make_showcase(session, name="zh", lang="zh-Hans")
        campaign = build_campaign(session, BuildSpec(name="zh", test_set=test_set,
                                                     worker=WorkerPageOptions(lang="zh-Hans")),
                                  storage=env.storage, processes=1)
        campaign.status = CampaignStatus.running
        session.commit()
        campaign_id = campaign.id
    client = env.app.test_client()
    return client, arrive_pool(env, client, campaign_id)
