"""Import fuzz: random and mangled test-set and answer files (JSONL, CSV, TSV) for the importers.

Every file is either imported, or refused with an :class:`InputError` that names the file (and the
line wherever the fault is on one), leaving the database exactly as it was. Anything else (a
traceback) fails the test. CI runs it with ``--hypothesis-seed=0`` (``.ci/run``) so a failure can be
reproduced; run alone, pytest draws new files every time. SQLite only: the importers' database
work is the same SQL on both, and the PostgreSQL cases of ``test_data_attacks`` cover it there.
"""
from __future__ import annotations

import csv
import io
import itertools
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from sqlalchemy import select, text

from da_core.errors import InputError
from da_platform.building.importers import import_system_answers, import_test_set
from da_platform.db import models
from da_platform.db.engine import make_engine, session_factory, transaction, upgrade
from tests.import_files import BASE_TEST_SET, TABLES

FIELDS = ["id", "question", "references", "answer_type", "yes_no", "context", "entities", "answer", "system"]

# Text with every kind of character, lone surrogates included (they survive only as JSON escapes).
texts = st.text(alphabet=st.characters(exclude_categories=()), max_size=20)
short_texts = st.text(max_size=12)
scalars = (st.none() | st.booleans() | st.integers(min_value=-10**40, max_value=10**40)
           | st.floats(allow_nan=True, allow_infinity=True) | texts)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                                             | st.dictionaries(short_texts, inner, max_size=3),
                      max_leaves=6)
plausible = {
    "id": st.sampled_from(["a1", "a2", "a3", "a4"]) | texts | st.integers(),
    "references": st.lists(texts, max_size=3) | values,
    "answer_type": st.sampled_from(["description", "yes_no", "entity", "other"]) | values,
    "yes_no": st.sampled_from(["yes", "no"]) | values,
}
records = st.fixed_dictionaries({}, optional={name: plausible.get(name, texts | values) for name in FIELDS}).flatmap(
    lambda record: st.dictionaries(short_texts, values, max_size=2).map(lambda extra: {**extra, **record}))


def _mangle(content: bytes, how: str, where: int, junk: bytes) -> bytes:
    """One of the ways a file goes wrong: cut, junk inserted, deep nesting, a huge number."""
    cut = where % (len(content) + 1)
    if how == "truncate":
        return content[:cut]
    if how == "insert":
        return content[:cut] + junk + content[cut:]
    if how == "deep":
        return content + b'{"id": "x", "question": ' + b"[" * 5000 + b"]" * 5000 + b"}\n"
    if how == "bigint":
        return content + b'{"id": ' + b"7" * 5000 + b', "question": "q"}\n'
    return content


# Text a valid file may hold: any character but a lone surrogate, hostile ones included.
valid_texts = st.text(alphabet=st.characters(exclude_categories=("Cs",)), min_size=1, max_size=20) | st.sampled_from(
    ['=HYPERLINK("http://evil.example")', "+cmd|' /C calc'!A0", "$x^2$", "<script>alert(1)</script>", "长城"])


def _valid_rows(target: str) -> st.SearchStrategy[list[dict]]:
    """Rows of a well-formed file for ``target`` (values may still be refused, e.g. control characters)."""
    if target == "answers":
        return st.lists(valid_texts, min_size=3, max_size=3).map(
            lambda answers: [{"id": f"a{i + 1}", "answer": a} for i, a in enumerate(answers)])
    return st.lists(st.tuples(valid_texts, st.lists(valid_texts, min_size=1, max_size=2)), min_size=1, max_size=3).map(
        lambda items: [{"id": f"q{i}", "question": q, "references": refs} for i, (q, refs) in enumerate(items)])


@st.composite
def files(draw, target: str) -> tuple[str, bytes]:
    suffix = draw(st.sampled_from([".jsonl", ".csv", ".tsv"]))
    valid = draw(st.booleans())
    rows = draw(_valid_rows(target) if valid else st.lists(records, min_size=0, max_size=4))
    if suffix == ".jsonl":
        ascii_only = draw(st.booleans())
        content = "".join(json.dumps(r, ensure_ascii=ascii_only) + "\n" for r in rows).encode("utf-8", "surrogatepass")
    else:
        header = (list(rows[0]) if valid else
                  draw(st.lists(st.sampled_from(FIELDS) | short_texts, min_size=1, max_size=5)))
        out = io.StringIO()
        writer = csv.writer(out, delimiter="," if suffix == ".csv" else "\t")
        writer.writerow(header)
        for r in rows:
            cells = [("|".join(r[name]) if isinstance(r.get(name), list) and valid else str(r.get(name, "")))
                     for name in header]
            writer.writerow(cells if valid else cells[: draw(st.integers(1, len(header)))])
        content = out.getvalue().encode("utf-8", "surrogatepass")
    how = draw(st.sampled_from(["none", "none", "none", "truncate", "insert", "deep", "bigint"]))
    return suffix, _mangle(content, how, draw(st.integers(0, 10**6)), draw(st.binary(min_size=1, max_size=8)))


@pytest.fixture(scope="module")
def database(tmp_path_factory):
    folder = tmp_path_factory.mktemp("import-fuzz")
    url = f"sqlite:///{folder / 'fuzz.sqlite'}"
    upgrade(url)
    engine = make_engine(url)
    sessions = session_factory(engine)
    base = folder / "base.jsonl"
    base.write_text(BASE_TEST_SET, encoding="utf-8")
    with transaction(sessions) as session:
        import_test_set(session, base)
    yield folder, sessions
    engine.dispose()


def _counts(sessions) -> tuple:
    with sessions() as session:
        return tuple(session.execute(text(f"SELECT count(*), max(id) FROM {t}")).one() for t in TABLES)


_numbers = itertools.count()


@pytest.mark.slow
@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data(), target=st.sampled_from(["test set", "answers"]))
def test_any_file_is_imported_or_refused_cleanly(database, data, target):
    folder, sessions = database
    suffix, content = data.draw(files(target), label="file")
    path: Path = folder / f"fuzz{next(_numbers)}{suffix}"
    path.write_bytes(content)
    before = _counts(sessions)
    try:
        with transaction(sessions) as session:
            if target == "test set":
                import_test_set(session, path)
            else:
                import_system_answers(session,
                                      session.scalar(select(models.TestSet).where(models.TestSet.name == "base")), path)
        event("imported")
    except InputError as error:
        event("refused: line named" if error.line is not None else "refused: file-level")
        assert error.file == str(path) and str(error).startswith(f"{path}")
        lines = len(content.splitlines()) + 1  # \r, \n and \r\n end lines, as for the readers
        assert error.line is None or 1 <= error.line <= lines
        assert _counts(sessions) == before
    finally:
        path.unlink()
