"""Build a campaign: assemble HITs, degrade answers, render images, persist, verify (docs/method.md §2–§4).

``build_campaign`` adds the campaign to the caller's session and flushes; the caller commits (or rolls
back on any error, which leaves the database as it was; rendered images are content-addressed files
that a later build simply reuses).

Determinism: the items are ordered by (system name, question id), so the same test set, systems,
seed and passes give the same HITs whatever the database ids. Public ids of HITs and slots are
``HMAC-SHA256(id_salt, campaign name, kind, index)`` (32 hex digits): unguessable without the salt, and
saying nothing about a slot's system, question or type. The salt is random per campaign and stored with
its settings (``CampaignSettings.id_salt``; the database is the researcher's, never a worker's); pass ``id_salt``
to reproduce a build exactly (same inputs, seed and salt give byte-identical HITs and images).
"""
from __future__ import annotations

import hashlib
import hmac
import random
import secrets
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass
from typing import cast

from sqlalchemy import Table, insert, select
from sqlalchemy.orm import Session, selectinload

from analysis.sequential_plan import WaveDesign
from da_core.enums import Criterion
from da_core.errors import BuildError
from da_platform.building.crowds import CrowdChoice
from da_platform.building.first_wave import first_wave_plan
from da_platform.building.inspection import verify_campaign
from da_platform.config.build_record import (
    AssemblyRecord,
    CheckOriginals,
    LayoutRecord,
    LongAnswersRecord,
    MergeRecord,
    MethodRecord,
    RenderRecord,
)
from da_platform.config.campaign_settings import CampaignSettings
from da_platform.config.waves_record import WavesRecord
from da_platform.db.models import Answer, Campaign, CampaignStatus, Hit, Question, Slot, SlotType, System, TestSet
from da_platform.db.rows import UnknownName, find_named
from hit_builder.assembly import ASSEMBLY_VERSION, Assembly, HitPlan, SlotPlan, assemble
from hit_builder.degrade import DonorPool, check_scripts, degrade, method_description
from hit_builder.fonts import FontChain
from hit_builder.layouts import Layout, layout_named
from hit_builder.meaning import EntityPool, change_meaning
from hit_builder.meaning import method_description as meaning_description
from hit_builder.merging import MergePlan
from hit_builder.ocr_resistant import HardenedStyle, check_drawable
from hit_builder.reading import LongAnswers, long_answers
from hit_builder.render import Renderer, Role, check_shaping, render_many
from hit_builder.storage import ImageStorage
from hit_builder.worker_settings import WorkerPage, WorkerPageOptions, worker_settings

ADEQUACY_STATEMENT = "Answer B answers the question as adequately as Answer A."
FLUENCY_STATEMENT = "The response answers the question fluently."
ID_HEX_DIGITS = 32

Progress = Callable[[str, int, int], None]  # (stage, done, total); stage "render" for now


@dataclass(frozen=True)
class _Item:
    """Everything a slot of one (system, question) item needs."""

    system: System
    question: Question
    answer_id: int
    answer: str
    reference: str


def criterion_named(criterion: Criterion | str) -> Criterion:
    """The :class:`Criterion` ``criterion`` names (a member or its value), or :class:`BuildError` listing them."""
    try:
        return Criterion(criterion)
    except ValueError:
        known = ", ".join(c.value for c in Criterion)
        raise BuildError(f"unknown criterion {criterion!r}; choose one of {known}") from None


def resolve_criterion(criterion: Criterion, statement: str | None,
                      show_reference: bool | None) -> tuple[str, bool]:
    """The statement and whether the reference is shown, for a criterion (docs/method.md §1)."""
    if criterion == Criterion.adequacy:
        if statement not in (None, ADEQUACY_STATEMENT) or show_reference is False:
            raise BuildError("adequacy uses the standard statement and shows the reference; "
                             "use the custom criterion for your own statement")
        return ADEQUACY_STATEMENT, True
    if criterion == Criterion.fluency:
        if statement not in (None, FLUENCY_STATEMENT) or show_reference is True:
            raise BuildError("fluency uses the standard statement and shows no reference; "
                             "use the custom criterion for your own statement")
        return FLUENCY_STATEMENT, False
    if not statement or not statement.strip():  # Criterion.custom
        raise BuildError("the custom criterion needs a statement (what workers judge)")
    if show_reference is None:
        raise BuildError("the custom criterion needs to be told whether to show the reference")
    return statement.strip(), bool(show_reference)


class OpaqueIds:
    """Unguessable, deterministic ids: HMAC-SHA256 keyed by the salt over the parts, 32 hex digits."""

    def __init__(self, salt: str) -> None:
        self._keyed = hmac.new(salt.encode("utf-8"), digestmod=hashlib.sha256)

    def __call__(self, *parts: object) -> str:
        mac = self._keyed.copy()  # the keyed state is computed once
        mac.update("\x1f".join(str(p) for p in parts).encode("utf-8"))
        return mac.hexdigest()[:ID_HEX_DIGITS]


def _resolve_systems(session: Session, test_set: TestSet,
                     systems: Sequence[System | str] | None) -> list[System]:
    available = list(session.scalars(select(System).where(System.test_set_id == test_set.id)))
    if not available:
        raise BuildError(f"test set {test_set.name!r} has no systems; import system answers first")
    if systems is None:
        return sorted(available, key=lambda s: s.name)
    by_name = {s.name: s for s in available}
    chosen: dict[str, System] = {}
    for entry in systems:
        name = entry.name if isinstance(entry, System) else str(entry)
        if name not in by_name or (isinstance(entry, System) and entry.test_set_id != test_set.id):
            raise BuildError(f"system {name!r} is not in test set {test_set.name!r} "
                             f"(it has: {', '.join(sorted(by_name))})")
        chosen[name] = by_name[name]
    if not chosen:
        raise BuildError("no systems chosen")
    return sorted(chosen.values(), key=lambda s: s.name)


def _load_items(session: Session, test_set: TestSet, systems: list[System],
                abstentions: dict[str, list[str]] | None = None) -> tuple[list[_Item], dict]:
    questions = list(session.scalars(
        select(Question).where(Question.test_set_id == test_set.id)
        .options(selectinload(Question.references)).order_by(Question.external_id)))
    if not questions:
        raise BuildError(f"test set {test_set.name!r} has no questions")
    references = {}
    for question in questions:
        if not question.references or not question.references[0].text.strip():
            raise BuildError(f"question {question.external_id!r} of test set {test_set.name!r} has no "
                             "reference answer (needed for REF checks, adequacy and degradation)")
        references[question.id] = question.references[0].text
    answers = {(row.system_id, row.question_id): row for row in session.execute(
        select(Answer.id, Answer.system_id, Answer.question_id, Answer.text)
        .where(Answer.system_id.in_([s.id for s in systems])))}
    items = []
    for system in systems:
        for question in questions:
            answer = answers.get((system.id, question.id))
            if answer is None and abstentions is not None:  # the system abstains: there is no item
                abstentions.setdefault(system.name, []).append(question.external_id)
                continue
            if answer is None or not answer.text.strip():
                problem = "no answer" if answer is None else "an empty answer"
                hint = " (it abstains there: --allow-missing leaves such items out)" if answer is None else ""
                raise BuildError(f"system {system.name!r} has {problem} to question {question.external_id!r}{hint}")
            items.append(_Item(system, question, answer.id, answer.text, references[question.id]))
    return items, references


def _merged(items: list[_Item]):
    from hit_builder.merging import merge_identical

    return merge_identical(items, question_of=lambda i: i.question.id, system_of=lambda i: i.system.id,
                           question_name=lambda i: i.question.external_id, system_name=lambda i: i.system.name,
                           text_of=lambda i: i.answer)


@dataclass(frozen=True)
class BuildSpec:
    """What to build: the campaign's name and test set, what workers judge, how the HITs are assembled and
    drawn. The CLI's ``build``, the demo and the tests make one; :func:`build_campaign` builds it.

    ``test_set``: the row, or its name or id as a person gives it (found as ``da_platform.db.rows.find_named``
    finds it; a name wins).
    ``criterion``: what workers judge, a :class:`~da_core.enums.Criterion` or its value as a person gives it
    (checked by the build: :func:`criterion_named`); ``statement`` and ``show_reference`` only for ``custom``.
    ``crowd``: the HIT layout (:mod:`hit_builder.layouts`), the answer images' render and the quality-control
    policy, with the crowd preset they were chosen by (:class:`~da_platform.building.crowds.CrowdChoice`: the one
    source of all three; stored under the settings' keys ``layout``, ``render``, ``qc`` and ``crowd``).
    ``allow_missing``: a system without an answer to a question abstains there (imported with
    ``import answers --allow-missing``): the item is left out and listed in ``CampaignSettings.abstentions``.
    ``merge_identical``: rate an answer several systems gave to a question once (``hit_builder.merging``).
    ``worker``: the worker pages' language, instructions, example, practice and context
    (``CampaignSettings.worker``). ``id_salt``: the salt of the public ids (default: random, stored).
    ``waves``: run the campaign in waves (docs/method.md §12): only the first wave's HITs are built
    (:mod:`da_platform.building.first_wave`), the design stored as ``CampaignSettings.waves``; None: the fixed design.
    """

    name: str
    test_set: TestSet | str
    systems: Sequence[System | str] | None = None
    criterion: Criterion | str = Criterion.adequacy
    statement: str | None = None
    show_reference: bool | None = None
    seed: int = 0
    passes: int = 1
    max_hits_per_worker: int = 1
    font_paths: Sequence[str] | None = None
    id_salt: str | None = None
    merge_identical: bool = False
    allow_missing: bool = False
    worker: WorkerPageOptions = WorkerPageOptions()
    crowd: CrowdChoice = CrowdChoice()
    waves: WaveDesign | None = None


def build_campaign(session: Session, spec: BuildSpec, *, storage: ImageStorage, progress: Progress | None = None,
                   processes: int | None = None, warn: Callable[[str], None] | None = None) -> Campaign:
    """Assemble, degrade, render, persist and verify the campaign ``spec`` describes; returns it with status
    ``built``. ``storage`` receives the images (drawn in ``processes`` processes, ``progress`` told how far);
    ``warn`` receives warnings (answers too long to read, no example)."""
    request = _checked_request(session, name=spec.name, test_set=spec.test_set,
                               max_hits_per_worker=spec.max_hits_per_worker, layout=spec.crowd.layout,
                               criterion=spec.criterion, statement=spec.statement, show_reference=spec.show_reference)
    imported = _import_items(session, request.test_set, spec.systems, allow_missing=spec.allow_missing,
                             merge_identical=spec.merge_identical)
    chain = FontChain.load(spec.font_paths)
    renderer = Renderer(chain, spec.crowd.render)
    assembled = _assemble(imported, request, seed=spec.seed, passes=spec.passes, waves=spec.waves)
    images = _render(assembled, imported.items, request, chain=chain, renderer=renderer, storage=storage,
                     worker=spec.worker, processes=processes, progress=progress, warn=warn)
    salt = spec.id_salt or secrets.token_hex(32)
    settings = _settings(request, imported, assembled, images, seed=spec.seed, passes=spec.passes, chain=chain,
                         renderer=renderer, salt=salt, crowd=spec.crowd)
    if assembled.waves is not None:
        settings = settings.replace(waves=assembled.waves)
    campaign = _store(session, request, imported.systems, assembled, images, settings, salt, seed=spec.seed,
                      passes=spec.passes, max_hits_per_worker=spec.max_hits_per_worker)
    verify_campaign(session, campaign)  # what was stored, read back
    campaign.status = CampaignStatus.built
    session.flush()
    return campaign


@dataclass(frozen=True)
class _Request:
    """The checked arguments of a build."""

    name: str
    test_set: TestSet
    layout: Layout
    criterion: Criterion
    statement: str
    show_reference: bool


@dataclass(frozen=True)
class _Imported:
    """What is rated: the chosen systems, their (system, question) items and the references."""

    systems: list[System]
    items: list[_Item]
    references: dict[int, str]
    abstentions: dict[str, list[str]] | None
    merged: MergePlan[_Item] | None


# One slot as stored: its HIT and plan, its item, the candidate and reference texts, the check's record.
_Row = tuple[HitPlan, SlotPlan, _Item, str, str | None, dict | None]


@dataclass(frozen=True)
class _Assembled:
    """The HITs, what every slot shows, and the distinct texts to draw (text, role) -> where it comes from."""

    plan: Assembly
    rows: list[_Row]
    jobs: dict[tuple[str, Role], str]
    waves: WavesRecord | None = None  # a campaign in waves: its design and first wave (the plan holds that wave)


@dataclass(frozen=True)
class _Images:
    """The storage keys of the drawn texts and the worker pages' settings (with their example images)."""

    image_of: dict[tuple[str, Role], str]
    count: int
    worker_page: WorkerPage
    reading: LongAnswers


def _checked_request(session: Session, *, name: str, test_set: TestSet | str, max_hits_per_worker: int,
                     layout: str, criterion: Criterion | str, statement: str | None,
                     show_reference: bool | None) -> _Request:
    """The arguments checked before any work: a new name, a known test set, layout and criterion."""
    if not name or not name.strip():
        raise BuildError("the campaign needs a name")
    name = name.strip()
    if isinstance(test_set, str):
        try:
            test_set = find_named(session, TestSet, test_set, kind="test set")
        except UnknownName as error:
            raise BuildError(str(error)) from None
    if session.scalar(select(Campaign.id).where(Campaign.name == name)) is not None:
        raise BuildError(f"a campaign named {name!r} exists already")
    if max_hits_per_worker < 1:
        raise BuildError("max_hits_per_worker must be at least 1")
    try:
        hit_layout = layout_named(layout)
    except ValueError as error:
        raise BuildError(str(error)) from None
    checked = criterion_named(criterion)
    statement, show_reference = resolve_criterion(checked, statement, show_reference)
    return _Request(name, test_set, hit_layout, checked, statement, show_reference)


def _import_items(session: Session, test_set: TestSet, systems: Sequence[System | str] | None, *,
                  allow_missing: bool, merge_identical: bool) -> _Imported:
    """Step 1: the items to rate, read from the database (identical answers merged if asked)."""
    chosen = _resolve_systems(session, test_set, systems)
    abstentions: dict[str, list[str]] | None = {} if allow_missing else None
    items, references = _load_items(session, test_set, chosen, abstentions)
    merged = _merged(items) if merge_identical else None
    return _Imported(chosen, merged.kept if merged is not None else items, references, abstentions, merged)


def _assemble(imported: _Imported, request: _Request, *, seed: int, passes: int,
              waves: WaveDesign | None = None) -> _Assembled:
    """Step 2: HITs (each verified by ``assemble``; in waves, the first wave's), the altered answers of the checks,
    every slot's texts."""
    items = imported.items
    keys = [(item.system.id, item.question.id) for item in items]
    by_key = {key: item for key, item in zip(keys, items)}
    scores: dict[Hashable, float] | None = (
        {key: original_score(item) for key, item in by_key.items()} if request.layout.targeted else None)
    plan = assemble(keys, seed=seed, passes=passes, layout=request.layout, scores=scores)
    record = None
    if waves is not None:
        plan, record = first_wave_plan(plan, {key: item.system.name for key, item in by_key.items()}, waves,
                                       seed=seed, layout=request.layout, scores=scores)
    return _Assembled(plan, *_texts(plan, by_key, items, imported.references, seed=seed,
                                    show_reference=request.show_reference), record)


def _texts(plan: Assembly, by_key: dict, items: list[_Item], references: dict[int, str], *, seed: int,
           show_reference: bool, stream: str = "") -> tuple[list[_Row], dict[tuple[str, Role], str]]:
    """The altered answers of the plan's checks and every slot's texts (a build's; a later wave's, whose random
    draws are their own ``stream``)."""
    altered = _degraded_answers(plan, by_key, items, references, seed=seed, stream=stream)
    altered.update(_meaning_changes(plan, by_key, items, seed=seed, stream=stream))
    return _slot_texts(plan, by_key, altered, show_reference=show_reference)


ORIGINAL_SCORE = "ROUGE-L F1 (analysis.metrics, lowercased) of the answer against the reference shown as Answer A"
"""The automatic score a targeted layout chooses check originals by (``CampaignSettings.check_originals``)."""


def original_score(item: _Item) -> float:
    """:data:`ORIGINAL_SCORE` of one item: how close its answer is to the reference."""
    from analysis.evidence import overlaps

    return overlaps(item.answer, item.reference)[1]


def _degraded_answers(plan: Assembly, by_key: dict, items: list[_Item], references: dict[int, str], *,
                      seed: int, stream: str = "") -> dict[tuple[int, int], tuple[str, dict]]:
    """The BAD_REF answers (docs/method.md §3) by (HIT index, position), with the record of how each was degraded."""
    external: dict[Hashable, str] = {item.question.id: item.question.external_id for item in items}
    answers_by_question: dict[int, list[str]] = {}
    for item in items:
        answers_by_question.setdefault(item.question.id, []).append(item.answer)
    donors = DonorPool(references, answers=answers_by_question)
    rng = random.Random(f"da-platform degradation v1 seed={seed}{stream}")
    degraded = {}
    for hit, slot in _slots_of_type(plan, SlotType.BAD_REF):
        item = by_key[slot.item]
        result = degrade(item.answer, question=item.question.id, donors=donors, rng=rng)
        check_scripts(item.answer, result.text, f"system {item.system.name!r}, question "
                      f"{item.question.external_id!r}")
        record = result.record()
        record["donor_question_external_id"] = external.get(result.donor_question)
        degraded[hit.index, slot.position] = (result.text, record)
    return degraded


def _meaning_changes(plan: Assembly, by_key: dict, items: list[_Item], *,
                     seed: int, stream: str = "") -> dict[tuple[int, int], tuple[str, dict]]:
    """The MEANING check answers (hardened layout) by (HIT index, position), recorded like degradations."""
    entities = EntityPool({item.question.id: item.question.gold_entities or () for item in items})
    meaning_rng = random.Random(f"da-platform meaning v1 seed={seed}{stream}")
    changed = {}
    for hit, slot in _slots_of_type(plan, SlotType.MEANING):
        item = by_key[slot.item]
        change = change_meaning(item.answer, question=item.question.id,
                                gold_entities=item.question.gold_entities or (), pool=entities, rng=meaning_rng)
        changed[hit.index, slot.position] = (change.text, change.record())
    return changed


def _slots_of_type(plan: Assembly, slot_type: SlotType) -> Iterator[tuple[HitPlan, SlotPlan]]:
    """The slots of one type, HIT by HIT in position order (the order the generators are drawn in)."""
    return ((hit, slot) for hit in plan.hits for slot in hit.slots if slot.slot_type is slot_type)


def _slot_texts(plan: Assembly, by_key: dict, altered: dict[tuple[int, int], tuple[str, dict]], *,
                show_reference: bool) -> tuple[list[_Row], dict[tuple[str, Role], str]]:
    """What every slot shows, and the distinct images to render (each with where its text comes from)."""
    jobs: dict[tuple[str, Role], str] = {}
    rows: list[_Row] = []
    for hit in plan.hits:
        for slot in hit.slots:
            item = by_key[slot.item]
            where = f"system {item.system.name!r}, question {item.question.external_id!r}"
            record = None
            if slot.slot_type is SlotType.BAD_REF:
                candidate, record = altered[hit.index, slot.position]
                candidate_where = f"degraded answer of {where}"
            elif slot.slot_type is SlotType.MEANING:
                candidate, record = altered[hit.index, slot.position]
                candidate_where = f"meaning-changed answer of {where}"
            elif slot.slot_type is SlotType.REF:
                candidate, candidate_where = item.reference, f"reference of question {item.question.external_id!r}"
            else:
                candidate, candidate_where = item.answer, f"answer of {where}"
            jobs.setdefault((candidate, Role.candidate), candidate_where)
            reference = item.reference if show_reference else None
            if reference is not None:
                jobs.setdefault((reference, Role.reference), f"reference of question {item.question.external_id!r}")
            rows.append((hit, slot, item, candidate, reference, record))
    return rows, jobs


def _context_warning(items: list[_Item]) -> list[str]:
    """``--show-context`` on questions without a context passage: say how many show none."""
    questions = {item.question.id: item.question for item in items}
    lacking = [q.external_id for q in questions.values() if not q.context]
    if not lacking:
        return []
    shown = ", ".join(lacking[:5]) + (", ..." if len(lacking) > 5 else "")
    return [f"warning: --show-context: {len(lacking)} of {len(questions)} questions have no context passage "
            f"({shown}); their items show none"]


def _render(assembled: _Assembled, items: list[_Item], request: _Request, *, chain: FontChain,
            renderer: Renderer, storage: ImageStorage, worker: WorkerPageOptions,
            processes: int | None, progress: Progress | None, warn: Callable[[str], None] | None) -> _Images:
    """Step 3: check fonts and shaping for every text first, then the worker pages' images and settings,
    the long-answer warning, and all answer images (in parallel)."""
    jobs = assembled.jobs
    chain.check_all((text, where) for (text, _role), where in jobs.items())
    for (text, _role), where in jobs.items():
        check_shaping(text, where, available=renderer.shaping)
        if isinstance(renderer.style, HardenedStyle):
            check_drawable(text, where)

    def render_one(text: str, role: str, where: str) -> str:
        chain.check(text, where)
        check_shaping(text, where, available=renderer.shaping)
        return storage.put(renderer.render(text, role, where))

    worker_page, warnings = worker_settings(worker, show_reference=request.show_reference, render=render_one,
                                           criterion=request.criterion)
    reading = long_answers((f"{item.system.name}/{item.question.external_id}", item.answer) for item in items)
    if reading_warning := reading.warning():
        warnings.append(reading_warning)
    if worker.show_context:
        warnings += _context_warning(items)
    for warning in warnings:
        if warn:
            warn(warning)

    job_list = [(text, role, where) for (text, role), where in jobs.items()]
    image_keys = render_many(renderer, job_list, storage, processes=processes,
                             progress=(lambda done, total: progress("render", done, total)) if progress else None)
    image_of = {(text, role): key for (text, role, _), key in zip(job_list, image_keys)}
    return _Images(image_of, len(job_list), worker_page, reading)


def _settings(request: _Request, imported: _Imported, assembled: _Assembled, images: _Images, *, seed: int,
              passes: int, chain: FontChain, renderer: Renderer, salt: str, crowd: CrowdChoice) -> CampaignSettings:
    """The campaign's settings: how it was built, enough to reproduce and report it."""
    import PIL

    plan, hit_layout, merged = assembled.plan, request.layout, imported.merged
    return CampaignSettings(
        assembly=AssemblyRecord(ASSEMBLY_VERSION, seed, passes, plan.items, len(plan.hits), plan.hits_per_pass,
                                plan.fill_per_pass, "system name, then question id; shuffled per pass with the seed"),
        degradation=MethodRecord.described(method_description(), seed=seed),
        stored_layout=hit_layout,
        layout_description=LayoutRecord.from_json(hit_layout.describe()),
        meaning=(MethodRecord.described(meaning_description(), seed=seed)
                 if SlotType.MEANING in hit_layout.check_types else None),
        check_originals=(CheckOriginals(ORIGINAL_SCORE, hit_layout.describe()["originals_by_score"])
                         if hit_layout.targeted else None),
        render=RenderRecord.described(crowd.render.describe(), fonts=chain.describe(), pillow=PIL.__version__,
                                      raqm=renderer.shaping, images=images.count),
        systems=tuple(s.name for s in imported.systems),
        abstentions={name: tuple(questions) for name, questions in (imported.abstentions or {}).items()} or None,
        identical_answers=MergeRecord.from_json(merged.describe()) if merged is not None else None,
        worker=images.worker_page,
        long_answers=LongAnswersRecord.from_json(images.reading.record()),
        id_salt=salt,
        ids=f"HMAC-SHA256(id_salt, name/kind/index), first {ID_HEX_DIGITS} hex digits",
        stored_qc=crowd.qc,
        crowd=crowd.record(),
    )


def _store(session: Session, request: _Request, systems: list[System], assembled: _Assembled, images: _Images,
           settings: CampaignSettings, salt: str, *, seed: int, passes: int,
           max_hits_per_worker: int) -> Campaign:
    """Step 4: the campaign, then HITs and slots in bulk (ordinary slots first, then the checks that point
    at them); flushed, not committed."""
    name = request.name
    campaign = Campaign(
        name=name, test_set_id=request.test_set.id, criterion=request.criterion.value, statement=request.statement,
        show_reference=request.show_reference, seed=seed, passes=passes, max_hits_per_worker=max_hits_per_worker,
        status=CampaignStatus.draft, settings=settings.to_json(),
    )
    campaign.systems = systems
    session.add(campaign)
    session.flush()
    insert_hits(session, campaign.id, name, salt, assembled.plan.hits, assembled.rows, images.image_of)
    return campaign


def insert_hits(session: Session, campaign_id: int, name: str, salt: str, hits: Sequence[HitPlan], rows: list[_Row],
                image_of: dict[tuple[str, Role], str]) -> None:
    """Store planned HITs and their slots in bulk (ordinary slots first, then the checks that point at them):
    a build's, or a wave's added to a built campaign (``da_platform.building.waves``)."""
    ids = OpaqueIds(salt)
    # Core inserts (executemany, no RETURNING: row-at-a-time on SQLite), ids read back in one query.
    session.execute(insert(cast(Table, Hit.__table__)), [
        {"campaign_id": campaign_id, "index": hit.index, "public_id": ids(name, "hit", hit.index),
         "max_assignments": 1, "slot_count": len(hit.slots)} for hit in hits])
    first, last = min(hit.index for hit in hits), max(hit.index for hit in hits)  # a build's, or a wave's: contiguous
    hit_ids = dict(session.execute(select(Hit.index, Hit.id).where(Hit.campaign_id == campaign_id,
                                                                   Hit.index.between(first, last))).all())

    def slot_row(hit, slot, item, candidate, reference, record) -> dict:
        return {
            "hit_id": hit_ids[hit.index], "position": slot.position, "set_index": slot.set_index,
            "slot_type": slot.slot_type, "public_id": ids(name, "slot", hit.index, slot.position),
            "question_id": item.question.id, "system_id": item.system.id, "answer_id": item.answer_id,
            "original_slot_id": None, "candidate_text": candidate, "reference_text": reference,
            "candidate_image": image_of[candidate, Role.candidate],
            "reference_image": image_of[reference, Role.reference] if reference is not None else None,
            "degradation": record,
        }

    session.execute(insert(cast(Table, Slot.__table__)),
                    [slot_row(*r) for r in rows if r[1].slot_type is SlotType.SYSTEM])
    slot_id = {(index, position): id_ for index, position, id_ in session.execute(
        select(Hit.index, Slot.position, Slot.id).join(Hit, Slot.hit_id == Hit.id)
        .where(Hit.campaign_id == campaign_id, Hit.index.between(first, last)))}
    checks = []
    for row in rows:
        hit, slot = row[0], row[1]
        if slot.slot_type is not SlotType.SYSTEM:
            assert slot.original_position is not None  # every check has its original (assembly verifies it)
            checks.append({**slot_row(*row), "original_slot_id": slot_id[hit.index, slot.original_position]})
    session.execute(insert(cast(Table, Slot.__table__)), checks)
