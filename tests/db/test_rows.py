"""get_row: a row that must exist comes back typed, or a clear error names the table and the id.
find_named: a campaign, test set or system as a person names it (name, else id), or one error listing the names."""
import pytest
from sqlalchemy.engine import make_url

from da_platform.campaigns.assignments import UnknownWorker, find_worker
from da_platform.db import models
from da_platform.db.models import Assignment, Campaign, Hit, System, Worker
from da_platform.db.rows import MissingRowError, UnknownName, find_named, get_row


def test_get_row_returns_the_row_or_names_table_and_id(session) -> None:
    worker = Worker(source="pool", external_id="w-1")
    session.add(worker)
    session.flush()
    assert get_row(session, Worker, worker.id) is worker
    with pytest.raises(MissingRowError, match=r"^no row with id 999 in table worker$"):
        get_row(session, Worker, 999)
    assert issubclass(MissingRowError, LookupError)


def _campaign(session, name: str, test_set: models.TestSet) -> Campaign:
    campaign = Campaign(name=name, test_set=test_set, criterion="adequacy", statement="s", seed=0)
    session.add(campaign)
    session.flush()
    return campaign


def test_a_name_or_an_id_finds_the_row_and_a_name_wins_over_an_id(session) -> None:
    test_set = models.TestSet(name="qa")
    session.add(test_set)
    pilot = _campaign(session, "pilot", test_set)
    second = _campaign(session, "second", test_set)
    assert find_named(session, Campaign, "pilot", kind="campaign") is pilot
    assert find_named(session, Campaign, str(second.id), kind="campaign") is second
    assert find_named(session, Campaign, f"00{second.id}", kind="campaign") is second
    assert find_named(session, models.TestSet, str(test_set.id), kind="test set") is test_set
    # A campaign literally named as another one's id: the name wins; the other stays reachable by its name.
    named_as_id = _campaign(session, str(pilot.id), test_set)
    assert named_as_id.id != pilot.id
    assert find_named(session, Campaign, str(pilot.id), kind="campaign") is named_as_id
    assert find_named(session, Campaign, "pilot", kind="campaign") is pilot


def test_what_is_not_there_lists_the_names_and_the_database(session, database_url) -> None:
    test_set = models.TestSet(name="qa")
    session.add(test_set)
    _campaign(session, "zeta", test_set)
    _campaign(session, "alpha", test_set)
    shown = make_url(database_url).render_as_string(hide_password=True)
    with pytest.raises(UnknownName) as missing:
        find_named(session, Campaign, "nope", kind="campaign")
    assert str(missing.value) == f"no campaign named 'nope' (campaigns: alpha, zeta) in database {shown}"
    with pytest.raises(UnknownName) as by_number:
        find_named(session, Campaign, "4096", kind="campaign")
    assert str(by_number.value) == (f"no campaign named '4096' or with id 4096 (campaigns: alpha, zeta) "
                                    f"in database {shown}")
    with pytest.raises(UnknownName, match=r"\(test sets: none yet\)"):
        find_named(session, models.TestSet, "x", kind="test set", within=models.TestSet.id < 0)


@pytest.mark.parametrize("given", ["99999999999999999999999", "2147483648", "1" * 5000, "٣", "²", "-1", "1.0", " 1"])
def test_a_number_no_id_can_be_is_no_id_and_no_crash(session, given: str) -> None:
    """Beyond the ids' 32-bit range (SQLite cannot even bind it), non-ASCII digits, signs: a name, never an id."""
    test_set = models.TestSet(name="qa")
    session.add(test_set)
    session.flush()
    with pytest.raises(UnknownName) as missing:
        find_named(session, models.TestSet, given, kind="test set")
    assert str(missing.value).startswith(f"no test set named {given!r} (test sets: qa) in database ")


def test_a_system_is_found_within_its_test_set_only(session) -> None:
    first, other = models.TestSet(name="first"), models.TestSet(name="other")
    session.add_all([first, other])
    mine, theirs = System(name="alpha", test_set=first), System(name="alpha", test_set=other)
    session.add_all([mine, theirs, System(name="beta", test_set=first)])
    session.flush()

    def system(given: str, test_set: models.TestSet) -> System:
        return find_named(session, System, given, kind="system", within=System.test_set_id == test_set.id,
                          scope=f" in test set {test_set.name!r}")

    assert system("alpha", first) is mine and system("alpha", other) is theirs
    assert system(str(mine.id), first) is mine
    with pytest.raises(UnknownName, match=rf"^no system named '{theirs.id}' or with id {theirs.id} in test set "
                                          r"'first' \(systems: alpha, beta\) in database "):
        system(str(theirs.id), first)


def test_a_worker_is_named_as_source_colon_id_or_by_a_unique_id(session) -> None:
    test_set = models.TestSet(name="qa")
    session.add(test_set)
    campaign = _campaign(session, "pilot", test_set)
    hit = Hit(campaign=campaign, index=0, public_id="H0", slot_count=100)
    workers = [Worker(source="pool", external_id="ana"), Worker(source="prolific", external_id="ana"),
               Worker(source="mturk", external_id="A1")]
    session.add_all([Assignment(hit=hit, worker=w, public_id=f"a{i}", source=w.source) for i, w in enumerate(workers)])
    session.flush()
    assert find_worker(session, campaign, "pool:ana") is workers[0]
    assert find_worker(session, campaign, "A1") is workers[2]
    both = ", ".join(f"{w.source}:ana" for w in sorted(workers[:2], key=lambda w: w.id))
    with pytest.raises(UnknownWorker, match=rf"^'ana' names several workers of campaign 'pilot' \({both}\): "
                                            "give it as source:id$"):
        find_worker(session, campaign, "ana")
    with pytest.raises(UnknownWorker, match=r"^no worker 'bob' in campaign 'pilot'"):
        find_worker(session, campaign, "bob")
