"""A system whose answers are another's word for word (merged identical answers: rated once, as the other's) tells
one story on the campaign page: its ratings are copies, counted and said, not "0 ratings" beside a ranked system."""
from __future__ import annotations

import re

from sqlalchemy import func, select

from da_platform.building.build import BuildSpec, build_campaign
from da_platform.db.models import Answer, Hit, Rating, Slot, SlotType, System
from tests import dashboard_factories
from tests.admin_client import login
from tests.factories import make_test_set


def test_the_campaign_page_counts_the_copies_of_a_system_merged_with_another(admin_env):
    with admin_env.sessions() as session:
        test_set = make_test_set(session, name="merged set", questions=35, systems=("good", "strong", "weak"))
        strong = next(s for s in test_set.systems if s.name == "strong")
        twin = System(name="twin")  # gives strong's answers word for word; rated as strong's
        test_set.systems.append(twin)
        twin.answers.extend(Answer(question=a.question, text=a.text) for a in strong.answers)
        session.flush()
        campaign = build_campaign(session, BuildSpec(name="merged", test_set=test_set, seed=1, merge_identical=True),
                                  storage=admin_env.storage)
        session.commit()
        dashboard_factories.rate_hit(session, campaign, 0, "careful", seed=1)
        # What the copies must be: every SYSTEM and REPEAT rating of strong's slots, counted again for twin.
        strong_ratings = session.scalar(
            select(func.count(Rating.id)).join(Slot, Slot.id == Rating.slot_id).join(Hit, Hit.id == Slot.hit_id)
            .join(System, System.id == Slot.system_id)
            .where(Hit.campaign_id == campaign.id, System.name == "strong",
                   Slot.slot_type.in_([SlotType.SYSTEM, SlotType.REPEAT])))
        campaign_id = campaign.id
    assert strong_ratings > 0
    client = admin_env.app.test_client()
    login(client)
    html = client.get(f"/admin/campaigns/{campaign_id}").text
    table = html[html.index('id="ratings-per-system"'):html.index("</table>", html.index('id="ratings-per-system"'))]
    rows = dict((name, (int(stored), int(copies))) for name, stored, copies in
                re.findall(r"<tr><td>([^<]*)</td><td class=\"num\">(\d+)</td><td class=\"num\">(\d+)</td></tr>", table))
    assert rows["twin"] == (0, strong_ratings)
    assert rows["strong"][1] == 0 and rows["strong"][0] >= strong_ratings
    assert ("twin: its 35 answers are strong&#39;s word for word, rated once as strong&#39;s; each rating counts "
            "for both (merged identical answers)") in html
    ranking = html[html.index('id="ranking-table"'):]
    assert "<td>twin</td>" in ranking and "<td>strong</td>" in ranking  # ranked both, with the same ratings
