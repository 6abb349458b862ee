"""Import of test sets and system answers: every accepted format, and every kind of bad input.

Each bad input must raise InputError naming file, line and field, and leave the database exactly
as it was -- even when the caller goes on to commit (the importer adds nothing before the whole
file is checked).
"""
from __future__ import annotations

import csv
import io
import json
import unicodedata
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from da_core.errors import InputError
from da_platform.building.importers import import_second_reference_as_human, import_system_answers, import_test_set
from da_platform.db import models
from da_platform.db.models import AnswerType, Question, System
from tests.import_files import BASE_TEST_SET, database_snapshot, write


@pytest.fixture
def base(sessions: sessionmaker[Session], tmp_path: Path) -> str:
    """A committed test set 'base' (a1, a2, a3; a3 has one reference) with one system 'sys1'."""
    with sessions() as s:
        test_set = import_test_set(s, write(tmp_path, "base.jsonl", BASE_TEST_SET))
        import_system_answers(s, test_set, write(tmp_path, "sys1.csv", "id,answer\na1,x\na2,是\na3,y\n"))
        s.commit()
    return "base"


def load(session: Session, name: str) -> models.TestSet:
    return session.scalars(select(models.TestSet).where(models.TestSet.name == name)).one()


def assert_rejected(sessions, call, path: Path | str, line: int | None, field: str | None, fragment: str) -> None:
    """``call(session)`` raises an InputError located at path:line, field, and changes nothing."""
    before = database_snapshot(sessions)
    with sessions() as s:
        with pytest.raises(InputError) as caught:
            call(s)
        error = caught.value
        assert not s.new and not s.dirty
        s.commit()  # even a caller that commits anyway must find nothing added
    assert (error.file, error.line, error.field) == (str(path), line, field)
    prefix = ":".join(str(p) for p in (path, line) if p is not None)
    if field:
        prefix += f": field '{field}'"
    assert str(error).startswith(prefix + ": "), str(error)
    assert fragment in error.message
    assert database_snapshot(sessions) == before


# --- happy paths -----------------------------------------------------------------------------

def test_jsonl_test_set_with_every_optional_field(session: Session, tmp_path: Path) -> None:
    path = write(tmp_path, "qa.jsonl", (
        '{"id": 7, "question": " What is a heat pump? ", "references": ["A pump that moves heat.", "It moves heat."],'
        ' "context": "Heat pumps move heat from outside.", "answer_type": "Description"}\n'
        '\n'
        '{"id": "q2", "question": "Is it efficient?", "references": ["Yes."], "answer_type": "yes_no",'
        ' "yes_no": "Yes", "context": null, "entities": null}\n'
        '{"id": "q3", "question": "Who makes them?", "references": ["Acme and Zenith."], "answer_type": "entity",'
        ' "entities": ["Acme", "Zenith"]}\n'
    ))
    test_set = import_test_set(session, path)
    session.commit()
    assert test_set.name == "qa" and test_set.source_file == str(path)
    q7, q2, q3 = load(session, "qa").questions
    assert (q7.external_id, q7.text, q7.context, q7.answer_type) == (
        "7", "What is a heat pump?", "Heat pumps move heat from outside.", AnswerType.description)
    assert [(r.position, r.text) for r in q7.references] == [(0, "A pump that moves heat."), (1, "It moves heat.")]
    assert (q2.answer_type, q2.yes_no_label, q2.context, q2.gold_entities) == (AnswerType.yes_no, "yes", None, None)
    assert (q3.answer_type, q3.gold_entities, q3.yes_no_label) == (AnswerType.entity, ["Acme", "Zenith"], None)


CSV_TEST_SET = (
    "\ufeffid,question,reference,reference_2,context,answer_type,yes_no,entities\r\n"
    'q1,"Why, exactly?","Because it rains,\r\nand then it pours.",Rain.,,description,,\r\n'
    'q2,Is it wet?,"Yes, ""very"" wet.",,Water is wet.,yes_no,no,\r\n'
    "q3,Who said it?,Ada said it.,Ada.,,entity,,Ada Lovelace; Charles Babbage;\r\n"
)


TSV_TEST_SET = (
    "\ufeffid\tquestion\treference\treference_2\tcontext\tanswer_type\tyes_no\tentities\r\n"
    'q1\tWhy, exactly?\t"Because it rains,\r\nand then it pours."\tRain.\t\tdescription\t\t\r\n'
    'q2\tIs it wet?\t"Yes, ""very"" wet."\t\tWater is wet.\tyes_no\tno\t\r\n'
    "q3\tWho said it?\tAda said it.\tAda.\t\tentity\t\tAda Lovelace; Charles Babbage;\r\n"
)


@pytest.mark.parametrize("name,content", [("qa.csv", CSV_TEST_SET), ("qa.tsv", TSV_TEST_SET)])
def test_csv_and_tsv_test_sets(session: Session, tmp_path: Path, name: str, content: str) -> None:
    import_test_set(session, write(tmp_path, name, content), name="qa")
    session.commit()
    q1, q2, q3 = load(session, "qa").questions
    assert q1.text == "Why, exactly?"
    assert [r.text for r in q1.references] == ["Because it rains,\nand then it pours.", "Rain."]
    assert (q1.context, q1.answer_type, q1.yes_no_label, q1.gold_entities) == (None, AnswerType.description, None, None)
    assert [r.text for r in q2.references] == ['Yes, "very" wet.']
    assert (q2.context, q2.yes_no_label) == ("Water is wet.", "no")
    assert q3.gold_entities == ["Ada Lovelace", "Charles Babbage"]


def test_text_is_normalised_to_nfc(session: Session, tmp_path: Path) -> None:
    decomposed = unicodedata.normalize("NFD", "Café crème?")
    assert decomposed != "Café crème?"
    path = write(tmp_path, "nfc.csv", f"id,question,reference\nq1,{decomposed},{decomposed}\n")
    question = import_test_set(session, path).questions[0]
    assert question.text == question.references[0].text == "Café crème?"


def test_answers_one_file_per_system_in_each_format(sessions, base: str, tmp_path: Path) -> None:
    files = [
        write(tmp_path, "alpha.jsonl", '{"id": "a3", "answer": "No."}\n{"id": "a1", "answer": "Pigments."}\n'
                                       '{"id": "a2", "answer": "因为叶绿素分解。"}\n'),
        write(tmp_path, "beta.csv", "answer,id\nPigments.,a1\n色素。,a2\nSometimes.,a3\n"),
        write(tmp_path, "gamma.tsv", "id\tanswer\na1\tLight.\na2\t光。\na3\tYes.\n"),
    ]
    with sessions() as s:
        test_set = load(s, base)
        imported = [import_system_answers(s, test_set, f) for f in files]
        renamed = import_system_answers(s, test_set, files[0], system="alpha-v2")
        s.commit()
    assert [[x.name for x in group] for group in imported] == [["alpha"], ["beta"], ["gamma"]]
    assert renamed[0].name == "alpha-v2" and renamed[0].source_file == str(files[0])
    with sessions() as s:
        systems = {x.name: {a.question.external_id: a.text for a in x.answers} for x in load(s, base).systems}
    assert systems["alpha"] == {"a1": "Pigments.", "a2": "因为叶绿素分解。", "a3": "No."}
    assert systems["beta"]["a2"] == "色素。" and systems["gamma"]["a3"] == "Yes."
    assert not any(x.is_human for x in load(sessions(), base).systems)


@pytest.mark.parametrize("name,content", [
    ("long.tsv", "system\tid\tanswer\nS1\ta1\tx1\nS2\ta1\ty1\nS1\ta2\tx2\nS2\ta2\t是\nS1\ta3\tx3\nS2\ta3\ty3\n"),
    ("long.jsonl", "".join(f'{{"system": "{s}", "id": "{i}", "answer": "{s}-{i}"}}\n'
                           for s in ("S1", "S2") for i in ("a1", "a2", "a3"))),
])
def test_long_table_with_a_system_column(sessions, base: str, tmp_path: Path, name: str, content: str) -> None:
    with sessions() as s:
        systems = import_system_answers(s, load(s, base), write(tmp_path, name, content))
        s.commit()
    assert [x.name for x in systems] == ["S1", "S2"]
    with sessions() as s:
        stored = {x.name: len(x.answers) for x in load(s, base).systems}
    assert stored == {"sys1": 3, "S1": 3, "S2": 3}


def test_chinese_text_round_trips_exactly(sessions, tmp_path: Path) -> None:
    question, reference, answer = ("怎样在室内养好绿萝？", "绿萝喜欢明亮的散射光，浇水要见干见湿。",
                                   "放在散射光下，土干了再浇水。")
    with sessions() as s:
        test_set = import_test_set(s, write(tmp_path, "中文.jsonl", json_line(question, reference)), name="中文测试集")
        import_system_answers(s, test_set, write(tmp_path, "系统甲.csv", f"id,answer\n问1,{answer}\n"))
        s.commit()
    with sessions() as s:
        test_set = load(s, "中文测试集")
        q = test_set.questions[0]
        assert (q.external_id, q.text, q.references[0].text, q.gold_entities) == ("问1", question, reference, ["绿萝"])
        assert [(x.name, x.answers[0].text) for x in test_set.systems] == [("系统甲", answer)]


def json_line(question: str, reference: str) -> str:
    return json.dumps({"id": "问1", "question": question, "references": [reference], "entities": ["绿萝"]},
                      ensure_ascii=False) + "\n"


def test_second_reference_as_human_system(sessions, tmp_path: Path) -> None:
    with sessions() as s:
        test_set = import_test_set(s, write(tmp_path, "two.csv", "id,question,reference,reference_2\n"
                                                               "q1,Why?,First answer.,Second answer.\n"
                                                               "q2,为什么？,第一个。,第二个。\n"))
        human = import_second_reference_as_human(s, test_set)
        s.commit()
    assert (human.name, human.is_human) == ("HUMAN", True)
    with sessions() as s:
        test_set = load(s, "two")
        human = s.scalars(select(System).where(System.name == "HUMAN")).one()
        assert sorted((a.question.external_id, a.text) for a in human.answers) == [
            ("q1", "Second answer."), ("q2", "第二个。")]
        # The reference shown to workers stays position 0.
        assert [q.references[0].text for q in test_set.questions] == ["First answer.", "第一个。"]


# Any text without control characters: Latin, CJK, emoji, combining marks, right-to-left scripts.
TEXTS = st.text(st.characters(blacklist_categories=("Cc", "Cs")), min_size=1, max_size=30).filter(str.strip)


@example(rows=[("line\u2028separator", "next\x85line", ""), ("\u00e9\u0301 e\u0301", "\u202eright-to-left", "")])
@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.tuples(TEXTS, TEXTS, TEXTS), min_size=1, max_size=4))
def test_any_unicode_text_round_trips_through_every_format(tmp_path_factory, rows) -> None:
    """Whatever a researcher's tool writes (json.dumps, csv.writer) reads back as the NFC text."""
    from hit_builder.readers import read_table
    from hit_builder.records import normalize_text, parse_test_set

    folder = tmp_path_factory.mktemp("unicode")
    expected = [(f"q{i}", normalize_text(q), (normalize_text(r),)) for i, (q, r, _) in enumerate(rows)]
    jsonl = "".join(json.dumps({"id": f"q{i}", "question": q, "references": [r]}, ensure_ascii=ascii_only) + "\n"
                    for i, (q, r, _) in enumerate(rows) for ascii_only in [i % 2 == 0])
    files = [write(folder, "t.jsonl", jsonl)]
    for name, delimiter in (("t.csv", ","), ("t.tsv", "\t")):
        buffer = io.StringIO(newline="")
        writer = csv.writer(buffer, delimiter=delimiter)
        writer.writerow(["id", "question", "reference"])
        writer.writerows((f"q{i}", q, r) for i, (q, r, _) in enumerate(rows))
        files.append(write(folder, name, buffer.getvalue()))
    for path in files:
        parsed = [(r.id, r.question, r.references) for r in parse_test_set(read_table(path))]
        assert parsed == expected, path.name


# --- bad input: test sets --------------------------------------------------------------------

TEST_SET_ERRORS = [
    # name, content, line, field, fragment of the message
    ("t.xlsx", "id,question\n", None, None, "unknown file type '.xlsx'"),
    ("t.jsonl", "  \n\n", None, None, "the file is empty"),
    ("t.csv", "id,question,reference\nq1,Why?,Yes\nq2,Caf\xe9?,No\n".encode("latin-1"), 3, None,
     "not valid UTF-8: byte 0xe9 at byte offset 40 (byte 7 of the line)"),
    ("t.jsonl", '{"id": "q1", "question": "Q", "references": ["R"]}\n{"id": "q2", "question": "Q"\n', 2, None,
     "not valid JSON"),
    ("t.jsonl", '["q1", "Q", "R"]\n', 1, None, "each line must be one JSON object"),
    ("t.jsonl", '{"id": "q1", "question": "Q", "question": "Q2", "references": ["R"]}\n', 1, "question",
     "appears twice"),
    ("t.jsonl", '{"question": "Q", "references": ["R"]}\n', 1, "id", "missing"),
    ("t.jsonl", '{"id": 1.5, "question": "Q", "references": ["R"]}\n', 1, "id", "must be text or a whole number"),
    ("t.jsonl", '{"id": "q1", "question": "Q", "references": ["R"]}\n\n{"id": "q1", "question": "Q", '
     '"references": ["R"]}\n', 3, "id", "duplicate id 'q1' (first on line 1)"),
    ("t.jsonl", '{"id": "q1", "question": "  ", "references": ["R"]}\n', 1, "question", "is empty"),
    ("t.jsonl", '{"id": "q1", "question": "Q"}\n', 1, "references", "missing"),
    ("t.jsonl", '{"id": "q1", "question": "Q", "references": []}\n', 1, "references", "the list is empty"),
    ("t.jsonl", '{"id": "q1", "question": "Q", "references": ["R", " "]}\n', 1, "references", "item 2"),
    ("t.jsonl", '{"id": "q1", "question": "Q", "references": "R"}\n', 1, "references", "must be a list of texts"),
    ("t.jsonl", '{"id": "q1", "question": "Q", "reference": "R"}\n', 1, "reference",
     'give all references as a list: "references"'),
    ("t.jsonl", '{"id": "q1", "question": "Q", "references": ["R"], "answer_type": "opinion"}\n', 1,
     "answer_type", "unknown answer type 'opinion'"),
    ("t.jsonl", '{"id": "q1", "question": "Q", "references": ["R"], "answer_type": "yes_no", "yes_no": "maybe"}\n',
     1, "yes_no", "unknown yes/no label 'maybe'"),
    ("t.jsonl", '{"id": "q1", "question": "Q", "references": ["R"], "yes_no": "yes"}\n', 1, "yes_no",
     "needs answer_type 'yes_no'"),
    ("t.jsonl", '{"id": "q1", "question": "Q", "references": ["R"], "entities": "Ada"}\n', 1, "entities",
     "must be a list of texts"),
    ("t.jsonl", '{"id": "q1", "question": "Q\\u0000", "references": ["R"]}\n', 1, "question",
     "control character U+0000"),
    ("t.csv", "id,reference\nq1,R\n", 1, "question", "the required column is missing"),
    ("t.csv", "\n\nid,question,reference,source\nq1,Q,R,web\n", 3, "source", "unknown column"),
    ("t.csv", "id,question,references\nq1,Q,R\n", 1, "references", "columns reference, reference_2"),
    ("t.csv", "id,question,reference,id\nq1,Q,R,q1\n", 1, "id", "appears twice in the header"),
    ("t.csv", "id,question,reference\nq1,Q,R\nq2,Q, with a comma,R\n", 3, None, "the row has 4 cells"),
    ("t.csv", "id,question,reference,reference_3\nq1,Q,R,R3\n", 1, "reference_3", "reference_2 is missing"),
    ("t.csv", "id,question,reference\nq1,Q,R\nq2,Q2,\n", 3, "reference", "is empty"),
    ("t.csv", "id,question,reference,reference_2,reference_3\nq1,Q,R,,R3\n", 2, "reference_3",
     "reference_2 is empty but reference_3 is not"),
    ("t.csv", 'id,question,reference\nq1,"Q"x,R\n', 2, None, "not valid CSV"),
    ("t.tsv", "id\tquestion\treference\n", 1, None, "has a header but no questions"),
]


def check_all(sessions, tmp_path: Path, cases: list[tuple], make_call) -> None:
    """``assert_rejected`` for every case on one database, reporting every case that fails.

    (One test per database rather than one per case keeps the suite fast: each case needs only
    a fresh file, not a fresh database.)
    """
    failures = []
    for number, (name, content, line, field, fragment) in enumerate(cases):
        folder = tmp_path / f"case{number:02d}"
        folder.mkdir()
        path = write(folder, name, content)
        try:
            assert_rejected(sessions, make_call(path), path, line, field, fragment)
        except AssertionError as failure:
            failures.append(f"case {number} ({fragment}): {failure}")
    assert not failures, "\n".join(failures)


def test_bad_test_sets_are_rejected_whole(sessions, base: str, tmp_path: Path) -> None:
    check_all(sessions, tmp_path, TEST_SET_ERRORS, lambda path: lambda s: import_test_set(s, path, name="new"))


def test_missing_test_set_file(sessions, base: str, tmp_path: Path) -> None:
    path = tmp_path / "nowhere.jsonl"
    assert_rejected(sessions, lambda s: import_test_set(s, path), path, None, None, "cannot read the file")


def test_test_set_name_already_taken(sessions, base: str, tmp_path: Path) -> None:
    path = write(tmp_path, "base.csv", "id,question,reference\nq1,Q,R\n")
    assert_rejected(sessions, lambda s: import_test_set(s, path), path, None, "name",
                    "a test set named 'base' already exists")


# --- bad input: answers ----------------------------------------------------------------------

ANSWER_ERRORS = [
    ("s.jsonl", '{"id": "a1", "answer": "x"}\n{"id": "a9", "answer": "x"}\n', 2, "id",
     "no question with id 'a9' in test set 'base'"),
    ("s.jsonl", '{"id": "a1", "answer": "x"}\n{"id": "a3", "answer": "x"}\n', None, "id",
     "system 's' has no answer for 1 question of test set 'base': 'a2'"),
    ("s.csv", "id,answer\na1,x\na2,y\na1,z\na3,w\n", 4, "id", "duplicate answer to 'a1' (first on line 2)"),
    ("s.csv", "id,answer\na1,x\na2,\na3,w\n", 3, "answer", "is empty"),
    ("s.csv", "id,text\na1,x\n", 1, "text", "unknown column"),
    ("s.tsv", "id\nqa1\n", 1, "answer", "the required column is missing"),
    ("s.tsv", "id\tanswer\na1\tx\na2\t\xff\xfe\na3\tz\n".encode().replace(b"\xc3\xbf\xc3\xbe", b"\xff\xfe"),
     3, None, "not valid UTF-8: byte 0xff"),
    ("sys1.jsonl", '{"id": "a1", "answer": "x"}\n{"id": "a2", "answer": "y"}\n{"id": "a3", "answer": "z"}\n',
     None, "system", "already has a system named 'sys1'"),
    ("long.csv", "system,id,answer\nS,a1,x\nS,a2,y\nS,a3,z\nsys1,a1,x\nsys1,a2,y\nsys1,a3,z\n", 5, "system",
     "already has a system named 'sys1'"),
    ("long.csv", "system,id,answer\nS,a1,x\n,a2,y\nS,a3,z\n", 3, "system", "every record needs one"),
    ("mixed.jsonl", '{"id": "a1", "answer": "x"}\n{"id": "a2", "answer": "y", "system": "T"}\n', 2, "system",
     "the first record (line 1) has no system"),
    ("long.jsonl", '{"id": "a1", "answer": "x", "system": "T"}\n{"id": "a2", "answer": "y"}\n', 2, "system",
     "every record needs one"),
    ("s.jsonl", '{"id": "a1", "answer": ["x"]}\n', 1, "answer", "must be text, not a list"),
]


def test_bad_answers_are_rejected_whole(sessions, base: str, tmp_path: Path) -> None:
    check_all(sessions, tmp_path, ANSWER_ERRORS,
              lambda path: lambda s: import_system_answers(s, load(s, base), path))


def test_system_name_given_for_a_long_table(sessions, base: str, tmp_path: Path) -> None:
    path = write(tmp_path, "long.csv", "system,id,answer\nS,a1,x\nS,a2,y\nS,a3,z\n")
    assert_rejected(sessions, lambda s: import_system_answers(s, load(s, base), path, system="T"), path, 1,
                    "system", "no system name may be given")


def test_human_leaves_out_the_questions_with_one_reference_and_counts_them(sessions, base: str) -> None:
    notes: list[str] = []
    with sessions() as s:
        import_second_reference_as_human(s, load(s, base), notes=notes)
        s.commit()
    with sessions() as s:
        human = s.scalars(select(System).where(System.name == "HUMAN")).one()
        # a1 and a2 have a second reference (BASE_TEST_SET); a3 has one only.
        assert sorted((a.question.external_id, a.text) for a in human.answers) == [
            ("a1", "The green pigment fades."), ("a2", "绿色素褪去了。")]
    assert notes == ["left out of HUMAN 1 question of 3 with one reference only (no second annotator): 'a3'; "
                     "HUMAN abstains on them, so build with --allow-missing, which leaves those items out"]


def test_human_needs_a_second_reference_somewhere(sessions, tmp_path: Path) -> None:
    with sessions() as s:
        import_test_set(s, write(tmp_path, "single.csv", "id,question,reference\nq1,Q1,R1\nq2,Q2,R2\n"))
        s.commit()
    source = str(tmp_path / "single.csv")
    assert_rejected(sessions, lambda s: import_second_reference_as_human(s, load(s, "single")), source, None,
                    "references", "no question of test set 'single' has a second reference, which a HUMAN system "
                                  "needs (each of its 2 questions has one reference)")


def test_human_name_already_taken(sessions, base: str, tmp_path: Path) -> None:
    source = str(tmp_path / "base.jsonl")
    assert_rejected(sessions, lambda s: import_second_reference_as_human(s, load(s, base), name="sys1"), source,
                    None, "system", "already has a system named 'sys1'")


def test_missing_answers_are_listed_briefly(sessions, tmp_path: Path) -> None:
    rows = "".join(f"q{i},Q{i},R{i}\n" for i in range(10))
    with sessions() as s:
        test_set = import_test_set(s, write(tmp_path, "ten.csv", "id,question,reference\n" + rows))
        s.commit()
    path = write(tmp_path, "few.csv", "id,answer\nq0,x\nq9,y\n")
    assert_rejected(sessions, lambda s: import_system_answers(s, load(s, test_set.name), path), path, None, "id",
                    "has no answer for 8 questions of test set 'ten': 'q1', 'q2', 'q3', 'q4', 'q5' and 3 more")


def test_questions_are_stored_in_file_order(session: Session, tmp_path: Path) -> None:
    path = write(tmp_path, "order.csv", "id,question,reference\nz,Q1,R\na,Q2,R\nm,Q3,R\n")
    import_test_set(session, path)
    session.commit()
    ids = session.scalars(select(Question.external_id).order_by(Question.id)).all()
    assert ids == ["z", "a", "m"]
