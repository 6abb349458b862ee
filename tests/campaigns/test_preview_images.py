"""`campaign preview --images`, as a library: the previewed slot's images written byte for byte from the image
store, and an image missing from the store named (SQLite and PostgreSQL)."""
from __future__ import annotations

import pytest

from da_platform.campaigns.preview import PreviewError, slot_preview, write_images
from da_platform.db.models import Campaign
from tests.web_factories import make_web_env


@pytest.fixture
def env(database_url, tmp_path):
    return make_web_env(database_url, tmp_path)


def test_the_slots_images_are_written_as_stored_and_a_missing_one_is_named(env, tmp_path):
    web = env.campaign(hits=1, slots=10, show_reference=True)
    with env.sessions() as session:
        shown = slot_preview(session, session.get(Campaign, web.campaign_id), 0, 3)
    assert shown.reference_image is not None and shown.candidate_image is not None

    written = list(write_images(shown, env.storage, tmp_path / "out" / "slot"))

    assert [p.name for p in written] == ["answer-a.png", "answer-b.png"]
    assert written[0].read_bytes() == env.storage.read(shown.reference_image)
    assert written[1].read_bytes() == env.storage.read(shown.candidate_image)
    env.storage.path(shown.candidate_image).unlink()
    with pytest.raises(PreviewError, match=f"^image {shown.candidate_image} is not in {env.storage.folder}$"):
        list(write_images(shown, env.storage, tmp_path / "again"))
    assert (tmp_path / "again" / "answer-a.png").is_file()  # written before the missing one
