"""The migrations create exactly the schema the models describe, on SQLite and PostgreSQL."""
from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from da_platform.db.engine import make_engine, upgrade
from da_platform.db.models import Base


def test_migrated_schema_matches_models(database_url: str) -> None:
    engine = make_engine(database_url)
    with engine.connect() as connection:
        diff = compare_metadata(MigrationContext.configure(connection), Base.metadata)
        tables = set(inspect(connection).get_table_names())
    engine.dispose()
    assert diff == []
    assert set(Base.metadata.tables) <= tables
    assert "alembic_version" in tables


def test_upgrade_is_idempotent(database_url: str) -> None:
    upgrade(database_url)  # already at head: must be a no-op, not an error
    engine = make_engine(database_url)
    with engine.connect() as connection:
        version = connection.exec_driver_sql("SELECT version_num FROM alembic_version").scalar_one()
    engine.dispose()
    assert version.startswith("0001") or version > "0001"


def test_0002_fills_slot_count_of_existing_hits(database_url: str, tmp_path) -> None:
    """A database built before 0002 gets each HIT's slot count from its stored slots."""
    from sqlalchemy import func, select

    from da_platform.building.build import BuildSpec, build_campaign
    from da_platform.db.engine import downgrade, session_factory, transaction
    from da_platform.db.models import Hit, Slot
    from da_platform.simulation.sample import import_sample
    from hit_builder.storage import LocalImageStorage

    engine = make_engine(database_url)
    with transaction(session_factory(engine)) as session:
        test_set = import_sample(session, questions=30)
        build_campaign(session, BuildSpec(name="c", test_set=test_set.name, seed=1),
                       storage=LocalImageStorage(tmp_path))
    engine.dispose()
    downgrade(database_url, "0001")  # back to 0001: the column goes, the HITs stay
    with engine.connect() as connection:
        assert "slot_count" not in {c["name"] for c in inspect(connection).get_columns("hit")}
        assert connection.execute(select(func.count()).select_from(Slot)).scalar_one() > 0
    upgrade(database_url)
    with engine.connect() as connection:
        stored = dict(connection.execute(select(Hit.id, Hit.slot_count)).all())
        counted = dict(connection.execute(select(Slot.hit_id, func.count()).group_by(Slot.hit_id)).all())
    engine.dispose()
    assert len(stored) >= 2
    assert stored == counted


def _at_revision(database_url: str, revision: str) -> None:
    """Migrate a fresh database down to ``revision`` (as an older installation would be)."""
    from da_platform.db.engine import downgrade

    upgrade(database_url)
    downgrade(database_url, revision)


def _insert_decision(database_url: str, action: str, status: str) -> None:
    engine = make_engine(database_url)
    with engine.begin() as connection:
        connection.exec_driver_sql("INSERT INTO test_set (id, name, created_at) VALUES (1, 't', CURRENT_TIMESTAMP)")
        connection.exec_driver_sql(
            "INSERT INTO campaign (id, name, test_set_id, criterion, statement, show_reference, seed, passes, "
            "max_hits_per_worker, status, settings, created_at) "
            "VALUES (1, 'c', 1, 'adequacy', 's', true, 1, 1, 1, 'draft', '{}', CURRENT_TIMESTAMP)")
        connection.exec_driver_sql(
            "INSERT INTO review_decision (campaign_id, action, use_data, reason, request_token, status, "
            f"created_at, updated_at) VALUES (1, '{action}', true, 'r', 'tok', '{status}', "
            "CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)")
    engine.dispose()


def test_0008_keeps_stored_decision_states_and_reads_them_as_enums(database_url: str) -> None:
    from sqlalchemy import select

    from da_platform.db.engine import session_factory
    from da_platform.db.models import ReviewDecision
    from da_platform.db.states import DecisionAction, DecisionStatus

    _at_revision(database_url, "0007")
    _insert_decision(database_url, "bonus", "sent")
    upgrade(database_url)
    engine = make_engine(database_url)
    with session_factory(engine)() as session:
        decision = session.scalars(select(ReviewDecision)).one()
        assert decision.action is DecisionAction.bonus
        assert decision.status is DecisionStatus.sent
    engine.dispose()


def test_0008_stops_on_a_state_it_does_not_know_and_changes_nothing(database_url: str) -> None:
    import pytest

    _at_revision(database_url, "0007")
    _insert_decision(database_url, "aprove", "done")
    with pytest.raises(RuntimeError, match=r"review_decision id \d+: action 'aprove' is not one of approve"):
        upgrade(database_url)
    engine = make_engine(database_url)
    with engine.connect() as connection:
        version = connection.exec_driver_sql("SELECT version_num FROM alembic_version").scalar_one()
        action = connection.exec_driver_sql("SELECT action FROM review_decision").scalar_one()
    engine.dispose()
    assert (version, action) == ("0007", "aprove")
