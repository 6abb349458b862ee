"""The dashboard's worker pages and `analyze` show the combined verdict and each behaviour signal; the policy's
recommendation for a worker flagged by behaviour alone is to hold, not to reject (both databases)."""
from __future__ import annotations

import html
import json
import re
from datetime import timedelta

from sqlalchemy import select

from da_platform.db.models import Assignment, BehaviourStatus, Rating, Worker
from tests import dashboard_factories as factories
from tests.admin_client import login

SCRIPTED = {"v": 1, "first_input_ms": None, "pointer": 0, "touch": 0, "key": 0, "hidden_ms": 0, "blur_ms": 0,
            "paste": 0, "copy": 0, "shown_ms": 6000}


def rated_with_records(env) -> tuple[int, dict[str, int]]:
    """A built campaign: HIT 0 rated by a person (pointer events, varying times), HIT 1 by a scripted
    agent (no event, 6 s every item); both score as a careful worker does. Returns the campaign id and
    the worker ids."""
    with env.sessions() as session:
        campaign = factories.build(session, env.storage, hostile=False)
        factories.rate_hit(session, campaign, 0, "person", seed=1)
        factories.rate_hit(session, campaign, 1, "agent", seed=2)
        ids = {w.external_id: w.id for w in session.scalars(select(Worker))}
        for name, record in (("person", None), ("agent", SCRIPTED)):
            assignment = select(Assignment.id).where(Assignment.worker_id == ids[name]).scalar_subquery()
            ratings = session.scalars(select(Rating).where(Rating.assignment_id == assignment)).all()
            for k, rating in enumerate(ratings):
                rating.behaviour_status = BehaviourStatus.valid
                rating.behaviour = record or {**SCRIPTED, "first_input_ms": 900, "pointer": 2,
                                              "shown_ms": 4000 + 900 * (k % 9)}
                # the server saw the time the record claims (and the network's share)
                rating.shown_at = rating.rated_at - timedelta(milliseconds=rating.behaviour["shown_ms"] + 300)
        session.commit()
        return campaign.id, ids


def test_analyze_prints_the_verdicts(admin_env, database_url, tmp_path):
    from click.testing import CliRunner

    from da_platform.cli import main

    rated_with_records(admin_env)
    result = CliRunner().invoke(main, ["analyze", "--campaign", "dash", "--out", str(tmp_path / "r"), "--no-plots"],
                                env={"DA_DATABASE_URL": database_url, "DA_INSTANCE_PATH": str(tmp_path)})
    assert result.exit_code == 0, result.output
    assert ("Verdict (checks and behaviour signals): 1 kept, 1 flagged for review, 0 excluded by quality control"
            in result.output)
    assert "  pool:agent: flagged for review: no_interaction (behaviour)" in result.output
    # one vocabulary, one count: the flagged worker is listed as flagged, never as excluded (failed before:
    # "dash: 1 excluded by quality control: pool:agent" right below "0 excluded")
    assert "dash: 1 flagged for review (not scored): pool:agent" in result.output
    assert "excluded by quality control:" not in result.output
    document = json.loads((tmp_path / "r" / "analysis.json").read_text(encoding="utf-8"))
    assert [(e["worker"], e["excluded_by"]) for e in document["exclusions"]] == [("pool:agent", "flagged for review")]


def test_worker_pages_show_the_verdict_and_its_signals(admin_env):
    campaign_id, ids = rated_with_records(admin_env)
    client = admin_env.app.test_client()
    login(client)
    listing = client.get(f"/admin/campaigns/{campaign_id}/workers").text
    rows = {name: re.search(rf">{name}</a>.*?</tr>", listing, re.DOTALL).group(0) for name in ("person", "agent")}
    assert ">kept</span>" in rows["person"] and ">flagged</span>" in rows["agent"]
    assert "flagged for review: no interaction, regular timing" in rows["agent"]

    page = html.unescape(client.get(f"/admin/campaigns/{campaign_id}/workers/{ids['agent']}").text)
    assert re.search(r'id="verdict"[^>]*>flagged<', page)
    assert "nothing is rejected without your decision" in page
    signals = re.search(r'<table id="signals-table".*?</table>', page, re.DOTALL).group(0)
    for name in ("no interaction", "regular timing"):
        assert re.search(rf"<td>{name}</td>.*?flagged</span>", signals, re.DOTALL), name
    assert re.search(r"<td>missing records</td>.*?>ok</span>", signals, re.DOTALL)
    recommendation = re.search(r'id="recommendation">([^<]*)<', page).group(1)
    assert recommendation == "hold"
    person = html.unescape(client.get(f"/admin/campaigns/{campaign_id}/workers/{ids['person']}").text)
    assert re.search(r'id="verdict"[^>]*>kept<', person)
    assert re.search(r'id="recommendation">approve and use the data', person)


def test_the_workers_table_says_why_a_worker_who_failed_the_meaning_check_is_excluded(admin_env):
    """The QC column is the BAD_REF check: a worker who passes it but scores meaning-changed answers
    above their originals is excluded, and the Flags column says why."""
    from da_platform.building.build import BuildSpec, build_campaign
    from da_platform.building.crowds import CrowdChoice
    from da_platform.db.models import SlotType
    from tests.factories import make_test_set

    def blind_to_meaning(slot, rng):  # degraded answers marked down, meaning changes scored top
        return 100 if slot.slot_type is SlotType.MEANING else factories.good(slot, rng)

    with admin_env.sessions() as session:
        test_set = make_test_set(session, name="meaning set", questions=35, systems=tuple(factories.QUALITY))
        spec = BuildSpec(name="meaning", test_set=test_set, seed=1, crowd=CrowdChoice("hardened"))
        campaign = build_campaign(session, spec,
                                  storage=admin_env.storage)
        session.commit()
        factories.rate_hit(session, campaign, 0, "blind", blind_to_meaning, seed=1)
        campaign_id = campaign.id
    client = admin_env.app.test_client()
    login(client)
    listing = client.get(f"/admin/campaigns/{campaign_id}/workers").text
    row = re.search(r"<tr>\s*<td><a [^>]*>blind</a>.*?</tr>", listing, re.DOTALL).group(0)
    cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.DOTALL)
    assert ">passed</span>" in cells[2]  # the BAD_REF check
    assert ">excluded</span>" in cells[11] and "MEANING check failed:" in html.unescape(cells[11])
    assert re.findall(r'<span class="tag warn">([^<]*)</span>', cells[12]) == ["MEANING check failed"]


def lapse_campaign(env) -> tuple[int, dict[str, int]]:
    """4 HITs: a reader who rates two HITs carefully and the third at random (a lapse), and a worker who rates
    the fourth at random. Returns the campaign id and the worker ids."""
    with env.sessions() as session:
        campaign = factories.build(session, env.storage, name="lapses", hostile=False, passes=2)
        for hit, seed in ((0, 1), (1, 2)):
            factories.rate_hit(session, campaign, hit, "reader", seed=seed)
        factories.rate_hit(session, campaign, 2, "reader", factories.careless, seed=3)
        factories.rate_hit(session, campaign, 3, "random", factories.careless, seed=4)
        return campaign.id, {w.external_id: w.id for w in session.scalars(select(Worker))}


def test_a_hit_without_signal_is_told_from_a_worker_who_looks_automated(admin_env):
    """Both databases: the worker page says which HIT carried no signal (a lapse of a reader), which worker
    showed no signal at all, and which looks automated."""
    campaign_id, ids = lapse_campaign(admin_env)
    client = admin_env.app.test_client()
    login(client)
    reader = html.unescape(client.get(f"/admin/campaigns/{campaign_id}/workers/{ids['reader']}").text)
    assert re.search(r'id="reading" data-reading="lapses"', reader)
    assert "1 of 3 HITs carried no signal on their own (lapses)" in reader
    alone = re.findall(r'<td class="hit-checks">(.*?)</td>', reader)
    assert len(alone) == 3 and sum(">pass</span>" in cell for cell in alone) == 2
    assert sum(">no signal: a lapse</span>" in cell for cell in alone) == 1
    assert re.search(r'id="recommendation">approve and use the data', reader)
    random = html.unescape(client.get(f"/admin/campaigns/{campaign_id}/workers/{ids['random']}").text)
    assert re.search(r'id="reading" data-reading="no_signal"', random)
    assert "a content-blind rater or a person who did not read" in random

    agent_campaign, agent_ids = rated_with_records(admin_env)
    agent = html.unescape(client.get(f"/admin/campaigns/{agent_campaign}/workers/{agent_ids['agent']}").text)
    assert re.search(r'id="reading" data-reading="automated"', agent)
    assert "this worker looks automated: no interaction, regular timing" in agent


def test_the_review_policy_pays_a_lapse_and_does_not_block_its_worker(admin_env):
    """Both databases: the own pool's review run approves and uses each of the reader's HITs, the lapse too,
    saying so; the worker who rated at random is not paid as a reader is."""
    from da_platform.config.campaign_settings import CampaignSettings
    from da_platform.db.models import Campaign
    from da_platform.review.pool_run import plan_pool

    campaign_id, ids = lapse_campaign(admin_env)
    with admin_env.sessions() as session:
        campaign = session.get(Campaign, campaign_id)
        planned = plan_pool(session, campaign, CampaignSettings.of(campaign).review_policy)
    reader = [p for p in planned if p.worker_id == ids["reader"]]
    assert sorted(p.action for p in reader) == ["approve"] * 3 and all(p.use_data for p in reader)
    assert sum("lapse: this HIT carried no signal" in p.reason for p in reader) == 1
    assert not any(p.action == "block" for p in planned)
    random = [p for p in planned if p.worker_id == ids["random"]]
    assert [p.use_data for p in random] == [False]
