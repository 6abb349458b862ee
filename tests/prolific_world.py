"""A campaign on the fake Prolific served on 127.0.0.1: the CLI pointed at it, participants who start the study
there, rate through the Flask worker pages and come back with the completion code, and the fake's ledger."""
from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from urllib.parse import parse_qs, urlsplit

from click.testing import CliRunner

from da_platform.cli import main
from da_platform.simulation.crowd import SimulatedClock
from tests.fakes.crowd import quality_campaign, rate_hit
from tests.fakes.fake_prolific import create_fake_prolific
from tests.fakes.server import serve_wsgi
from tests.web_factories import make_web_env

PUBLIC = "https://da.example.org"
CODE = "C0MPL3TE"


class World:
    """The app (``env``), the fake Prolific's state (``fake``, served at ``url``) and the CLI's environment."""

    def __init__(self, env, state, url, database_url):
        self.env, self.fake, self.url = env, state, url
        self.environ = {"DA_DATABASE_URL": database_url, "DA_PUBLIC_URL": PUBLIC, "DA_PROLIFIC_API_URL": url,
                        "PROLIFIC_API_TOKEN": state.token, "DA_SECRET_KEY": "test-secret-key"}

    def cli(self, *args: str, ok: bool = True):
        result = CliRunner().invoke(main, list(args), env=self.environ, catch_exceptions=False)
        if ok:
            assert result.exit_code == 0, result.output
        return result

    def study(self) -> dict:
        (study,) = self.fake.studies.values()
        return study

    def take_part(self, participant: str, behaviour) -> str:
        """A participant starts the study on Prolific, rates in our app, is sent back with the code."""
        study = self.study()
        session_id = self.fake.start(study["id"], participant)
        link = study["external_study_url"]
        assert link.startswith(PUBLIC + "/prolific/")
        client = self.env.app.test_client()
        arrival = client.get(urlsplit(link).path, query_string={
            "PROLIFIC_PID": participant, "STUDY_ID": study["id"], "SESSION_ID": session_id})
        assert arrival.status_code == 303, arrival.text
        rate_hit(self.env, client, arrival.location, behaviour)
        done = client.get(arrival.location + "done")
        assert done.status_code == 302
        self.fake.complete(session_id, parse_qs(urlsplit(done.location).query)["cc"][0])
        return session_id


def prolific_world(database_url: str, tmp_path) -> Iterator[World]:
    """A :class:`World` on ``database_url`` with the fake Prolific served on 127.0.0.1 (for ``yield from`` in
    a fixture)."""
    app = create_fake_prolific()
    with serve_wsgi(app) as url:
        env = make_web_env(database_url, tmp_path, clock=SimulatedClock())
        yield World(env, app.config["PROLIFIC"], url, database_url)


def published(world: World, hits: int, name: str) -> None:
    """A quality campaign of ``hits`` HITs launched as a study and published (``--live``)."""
    quality_campaign(world.env, hits=hits, name=name, completion_code=CODE)
    draft = world.cli("prolific", "launch", name, "--reward", "3.00", "--minutes", "15").output
    assert "created as a draft" in draft and world.study()["status"] == "UNPUBLISHED"
    # places x (3.00 + 33.33 % fee); publishing needs the exact total
    total = (Decimal("3.00") * hits + (Decimal("3.00") * hits * Decimal("0.3333")).quantize(Decimal("0.01")))
    world.cli("prolific", "launch", name, "--live", "--confirm-total", str(total))
    assert world.study()["status"] == "ACTIVE" and len(world.fake.studies) == 1  # found again, not re-created
