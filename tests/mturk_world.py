"""A campaign on the fake MTurk served on 127.0.0.1: the CLI pointed at it (boto3), workers who take HITs
through the Flask worker pages and submit to the fake's externalSubmit, and the fake's ledger of payments."""
from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal

import requests
from click.testing import CliRunner
from sqlalchemy import select

from da_platform.cli import main
from da_platform.db.models import Hit
from da_platform.simulation.crowd import SimulatedClock
from tests.fakes.crowd import quality_campaign, rate_hit, submit_form
from tests.fakes.fake_mturk import create_fake_mturk
from tests.fakes.server import serve_wsgi
from tests.web_factories import make_web_env

PUBLIC = "https://da.example.org"


class World:
    """The app (``env``), the fake MTurk (``fake``, served at ``url``) and the CLI's environment for both."""

    def __init__(self, env, fake_app, fake_url, database_url):
        self.env, self.fake, self.url, self.database_url = env, fake_app.config["MTURK"], fake_url, database_url
        self.environ = {"DA_DATABASE_URL": database_url, "DA_PUBLIC_URL": PUBLIC, "DA_MTURK_ENDPOINT_URL": fake_url,
                        "AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
                        "DA_SECRET_KEY": "test-secret-key"}

    def cli(self, *args: str, ok: bool = True):
        result = CliRunner().invoke(main, list(args), env=self.environ, catch_exceptions=False)
        if ok:
            assert result.exit_code == 0, result.output
        return result

    def hit_ids(self, campaign_id: int) -> list[str]:
        with self.env.sessions() as s:
            return list(s.scalars(select(Hit.provider_hit_id).where(Hit.campaign_id == campaign_id)
                                  .order_by(Hit.index)))

    def work(self, hit_id: str, worker: str, behaviour) -> str:
        """A worker accepts the HIT on MTurk, rates it in our app and the page posts back to MTurk."""
        assignment_id = self.fake.accept(hit_id, worker)
        client = self.env.app.test_client()
        arrival = client.get("/mturk", query_string={"assignmentId": assignment_id, "hitId": hit_id,
                                                      "workerId": worker, "turkSubmitTo": self.url})
        assert arrival.status_code == 303, arrival.text
        rate_hit(self.env, client, arrival.location, behaviour)
        action, fields = submit_form(client.get(arrival.location + "done").text)
        assert action == self.url + "/mturk/externalSubmit"
        assert requests.post(action, data=fields, timeout=10).status_code == 200
        return assignment_id

    def ledger(self) -> list[tuple[str, str, Decimal]]:
        return sorted((e.kind, e.worker_id, e.amount) for e in self.fake.payments())


def mturk_world(database_url: str, tmp_path) -> Iterator[World]:
    """A :class:`World` on ``database_url`` with the fake MTurk served on 127.0.0.1 (for ``yield from`` in
    a fixture)."""
    app = create_fake_mturk()
    with serve_wsgi(app) as url:
        env = make_web_env(database_url, tmp_path, MTURK_SUBMIT_ORIGINS=[url], clock=SimulatedClock())
        yield World(env, app, url, database_url)


def launched(world: World, hits: int, name: str = "mturk-e2e") -> int:
    campaign_id = quality_campaign(world.env, hits=hits, name=name)
    out = world.cli("mturk", "launch", name, "--reward", "2.00", "--locale", "US").output
    assert f"created {hits} HIT(s)" in out
    return campaign_id
