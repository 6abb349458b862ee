"""Small campaigns for the web tests, made directly with the models (independent of the HIT builder).

Each HIT has ``slots`` slots in a fixed pattern of slot types; a REPEAT shows exactly the images of
an earlier SYSTEM slot (same storage key), as the real builder does. Images are tiny PNGs drawn with
Pillow and stored in a ``LocalImageStorage``.
"""
from __future__ import annotations

import io
import secrets
from dataclasses import dataclass

from PIL import Image, ImageDraw
from sqlalchemy.orm import Session

from da_platform.models import (
    Answer,
    Campaign,
    CampaignStatus,
    Hit,
    Question,
    Reference,
    Slot,
    SlotType,
    System,
    TestSet,
)
from hit_builder.storage import LocalImageStorage

ADEQUACY = "Answer B answers the question as adequately as Answer A."
CHINESE_QUESTION = "长城有多长？"


def png(label: int, grey: bool = False) -> bytes:
    """A small distinct PNG per label (a bar whose length encodes the label)."""
    image = Image.new("RGB", (160, 24), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle([2, 6, 2 + label % 150, 18], fill=(128, 128, 128) if grey else (0, 0, 0))
    draw.point((150 + label // 150 % 10, 2), fill=(label % 256, 0, 0))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


@dataclass
class WebCampaign:
    campaign_id: int
    hit_ids: list[int]
    name: str


def _slot_type(position: int) -> SlotType:
    return {7: SlotType.REPEAT, 8: SlotType.BAD_REF, 9: SlotType.REF}.get(position % 10, SlotType.SYSTEM)


def make_campaign(
    session: Session,
    storage: LocalImageStorage,
    *,
    hits: int = 1,
    slots: int = 100,
    max_hits_per_worker: int = 1,
    max_assignments: int = 1,
    status: CampaignStatus = CampaignStatus.running,
    completion_code: str | None = "C0MPL3TE",
    provider: str | None = None,
    show_reference: bool = True,
    name: str | None = None,
) -> WebCampaign:
    """A campaign of ``hits`` HITs of ``slots`` slots; question 0 is in Chinese. Commits."""
    name = name or f"web-{secrets.token_hex(4)}"
    test_set = TestSet(name=name)
    system = System(name="sys-a", test_set=test_set)
    session.add_all([test_set, system])
    questions = []
    for i in range(slots):
        text = CHINESE_QUESTION if i == 0 else f"Question number {i}: what is <b>{i}</b> & why?"
        question = Question(test_set=test_set, external_id=f"q{i}", text=text)
        question.references.append(Reference(position=0, text=f"reference {i}"))
        questions.append(question)
    answers = [Answer(system=system, question=q, text=f"answer {i}") for i, q in enumerate(questions)]
    session.add_all(questions + answers)
    campaign = Campaign(
        name=name,
        test_set=test_set,
        criterion="adequacy",
        statement=ADEQUACY,
        show_reference=show_reference,
        seed=0,
        max_hits_per_worker=max_hits_per_worker,
        completion_code=completion_code,
        status=status,
        settings={},
    )
    campaign.systems.append(system)
    session.add(campaign)
    for h in range(hits):
        hit = Hit(
            campaign=campaign,
            index=h,
            public_id=secrets.token_urlsafe(16),
            max_assignments=max_assignments,
            slot_count=slots,
            provider=provider,
            provider_hit_id=f"HIT{h}X{secrets.token_hex(4).upper()}" if provider else None,
        )
        session.add(hit)
        by_position: dict[int, Slot] = {}
        for position in range(slots):
            slot_type = _slot_type(position)
            original = by_position[position - 7] if slot_type == SlotType.REPEAT else None
            label = h * 1000 + (original.position if original is not None else position)
            slot = Slot(
                hit=hit,
                position=position,
                set_index=position // 10,
                slot_type=slot_type,
                public_id=secrets.token_urlsafe(16),
                question=questions[position if original is None else original.position],
                system=system,
                answer=answers[position if original is None else original.position],
                original_slot=original,
                candidate_text=f"answer {label}",
                reference_text=f"reference {label}",
                candidate_image=storage.put(png(label)),
                reference_image=storage.put(png(label, grey=True)),
            )
            by_position[position] = slot
            session.add(slot)
    session.commit()
    return WebCampaign(campaign_id=campaign.id, hit_ids=[h.id for h in campaign.hits], name=name)


@dataclass
class WebEnv:
    """A test app on a fresh database, with its image storage and session factory."""

    app: object
    sessions: object
    storage: LocalImageStorage

    def campaign(self, **kwargs) -> WebCampaign:
        with self.sessions() as session:
            return make_campaign(session, self.storage, **kwargs)


def make_web_env(database_url: str, tmp_path, **config) -> WebEnv:
    """``create_app`` for tests (TESTING, fixed secret key, images under ``tmp_path``).

    Dashboard pages compute the analysis off the request path as always, but wait for it up to
    ``ANALYSIS_WAIT_SECONDS`` = 120 s rather than 2 s, so that a loaded machine does not turn a page into
    "computing…"; the tests of that page set it to 0."""
    from da_platform.web import create_app

    folder = tmp_path / "images"
    app = create_app(
        {
            "TESTING": True,
            "SECRET_KEY": "test-secret-key",
            "DATABASE_URL": database_url,
            "IMAGE_FOLDER": str(folder),
            "PUBLIC_URL": "http://127.0.0.1",
            "ANALYSIS_WAIT_SECONDS": 120,
            **config,
        }
    )
    return WebEnv(app=app, sessions=app.config["SESSIONS"], storage=LocalImageStorage(folder))
