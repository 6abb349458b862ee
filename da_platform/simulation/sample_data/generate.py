"""Generate the bundled synthetic sample: a non-factoid QA test set and systems of known quality.

Every question's reference answer is a few key points (see :mod:`.topics`). Each system answers
by keeping, dropping, rewording or getting wrong those points, or by not answering at all, so
its quality is known item by item and shows in the text. The true quality of an answer is

    q = 100 · (0.9 · coverage + 0.1 · fluency) − 30 · wrong,   reported as 2 + 0.95 · q

where ``coverage`` and ``wrong`` are the weighted shares of the key points stated correctly and
incorrectly (a yes/no verdict or the asked-for entity weighs 2, every other point 1; a point
repeated and broken off earns ``STUTTER_CREDIT`` of its weight) and
``fluency`` is 1 for well-formed text and 0 otherwise. A simulated honest worker rates around it.

Deterministic: the same seed and size give byte-identical files.

    python -m da_platform.simulation.sample_data.generate --help
"""
from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import click

from da_core.text import detokenize, tokenize
from da_platform.simulation.sample_data.topics import LANGUAGES, TOPICS, Language, Point, Topic

SEED = 20240611
QUESTIONS = 300
CHINESE_SHARE = 0.12
CONTEXT_SHARE = 0.3
ANSWER_TYPES = {"description": 70, "yes_no": 15, "entity": 15}
HUMAN = "HUMAN"
#: Share of a point's credit that a garbled, repeated statement of it earns.
STUTTER_CREDIT = 0.75
TEST_SET_FILE = "test_set.jsonl"
TRUTH_FILE = "truth.json"


@dataclass(frozen=True)
class Unit:
    """One key point of a question's answer: its weight and three wordings, right and wrong."""

    weight: int
    right: tuple[str, ...]
    wrong: tuple[str, ...]


@dataclass(frozen=True)
class Item:
    """One generated question with everything a system needs to answer it well or badly."""

    id: str
    language: str
    question: str
    answer_type: str
    units: tuple[Unit, ...]
    references: tuple[str, str]
    yes_no: str | None = None
    entities: tuple[str, ...] | None = None
    context: str | None = None

    @property
    def total_weight(self) -> int:
        return sum(unit.weight for unit in self.units)


@dataclass(frozen=True)
class Answer:
    """A system's answer and its true quality (0-100)."""

    text: str
    quality: float


@dataclass(frozen=True)
class SampleData:
    items: tuple[Item, ...]
    answers: dict[str, tuple[Answer, ...]]  # system name -> one answer per item, in item order
    descriptions: dict[str, str]


def true_quality(coverage: float, wrong: float, fluent: bool) -> float:
    """The module docstring's formula, rounded to one decimal."""
    q = max(0.0, min(100.0, 100 * (0.9 * coverage + 0.1 * fluent) - 30 * wrong))
    return round(2 + 0.95 * q, 1)


def _join(language: Language, sentences: list[str]) -> str:
    return language.sentence_separator.join(sentences)


def _article(noun: str) -> str:
    return ("an " if noun[0] in "aeiou" else "a ") + noun


def _other(rng: random.Random, values: tuple[str, ...], value: str) -> str:
    return rng.choice([v for v in values if v != value])


def _make_item(rng: random.Random, number: int, language_code: str) -> Item:
    language = LANGUAGES[language_code]
    topic: Topic = rng.choice(TOPICS[language_code])
    subject = rng.choice(topic.subjects)
    facts = {slot: rng.choice(values) for slot, values in topic.slots.items()}
    names = {"s": subject, "a_s": _article(subject) if language_code == "en" else subject, **facts}

    def render(template: str, **changed: str) -> str:
        return template.format(**{**names, **changed})

    def point_unit(point: Point) -> Unit:
        wrong_value = _other(rng, topic.slots[point.slot], facts[point.slot])
        return Unit(1, tuple(render(w) for w in point.wordings),
                    tuple(render(w, **{point.slot: wrong_value}) for w in point.wordings))

    answer_type = rng.choices(list(ANSWER_TYPES), weights=list(ANSWER_TYPES.values()))[0]
    yes_no = entities = None
    if answer_type == "description":
        count = min(len(topic.points), rng.choice((3, 4)))
        points = [topic.points[i] for i in sorted(rng.sample(range(len(topic.points)), count))]
        question = render(rng.choice(topic.questions))
        units = [point_unit(p) for p in points]
    elif answer_type == "yes_no":
        asked, other = rng.sample(topic.points, 2)
        yes_no = rng.choices(("yes", "no", "depends"), weights=(45, 40, 15))[0]
        value = facts[asked.slot] if yes_no != "no" else _other(rng, topic.slots[asked.slot], facts[asked.slot])
        question = render(asked.ask, **{asked.slot: value})
        verdicts = {"yes": language.yes, "no": language.no, "depends": language.depends}
        opposite = {"yes": "no", "no": "yes", "depends": "yes"}[yes_no]
        units = [Unit(2, verdicts[yes_no], verdicts[opposite]), point_unit(asked), point_unit(other)]
    else:
        entity = rng.choice(topic.entities)
        wrong_entity = _other(rng, topic.entities, entity)
        entities = (entity,)
        question = render(topic.entity_question)
        lead = Unit(2, tuple(render(w, e=entity) for w in topic.entity_wordings),
                    tuple(render(w, e=wrong_entity) for w in topic.entity_wordings))
        units = [lead] + [point_unit(p) for p in rng.sample(topic.points, 2)]
    references = (_join(language, [u.right[0] for u in units]), _join(language, [u.right[1] for u in units]))
    context = None
    if rng.random() < CONTEXT_SHARE:
        sentences = [render(p.wordings[2]) for p in topic.points]
        if entities:
            sentences.append(render(topic.entity_wordings[2], e=entity))
        rng.shuffle(sentences)
        context = _join(language, [render(rng.choice(language.context_openings))] + sentences)
    return Item(f"q{number:04d}", language_code, question, answer_type, tuple(units), references,
                yes_no, entities, context)


def _kept(rng: random.Random, item: Item, share: float) -> list[Unit]:
    kept = [unit for unit in item.units if rng.random() < share]
    return kept or [rng.choice(item.units)]


def _answer_from_units(item: Item, sentences: list[str], right: float, wrong: float, fluent: bool = True) -> Answer:
    text = _join(LANGUAGES[item.language], sentences)
    return Answer(text, true_quality(right / item.total_weight, wrong / item.total_weight, fluent))


def _paraphrase(rng: random.Random, item: Item) -> Answer:
    """Nearly everything, reworded: most points in the third wording."""
    kept = _kept(rng, item, 0.9)
    return _answer_from_units(item, [u.right[2] for u in kept], sum(u.weight for u in kept), 0)


def _partial(rng: random.Random, item: Item) -> Answer:
    """About two thirds of the points, worded like one of the references."""
    kept = _kept(rng, item, 0.65)
    return _answer_from_units(item, [u.right[rng.randrange(2)] for u in kept], sum(u.weight for u in kept), 0)


def _vague(rng: random.Random, item: Item) -> Answer:
    """A few points and a generic hedge."""
    kept = _kept(rng, item, 0.4)
    sentences = [u.right[rng.randrange(3)] for u in kept] + [rng.choice(LANGUAGES[item.language].hedges)]
    return _answer_from_units(item, sentences, sum(u.weight for u in kept), 0)


def _confidently_wrong(rng: random.Random, item: Item) -> Answer:
    """Fluent, most points present, but some of them (at least one) with the wrong value."""
    kept = _kept(rng, item, 0.8)
    wrong = [rng.random() < 0.4 for _ in kept]
    if not any(wrong):
        wrong[rng.randrange(len(kept))] = True
    sentences = [(u.wrong if w else u.right)[rng.randrange(1, 3)] for u, w in zip(kept, wrong)]
    right_weight = sum(u.weight for u, w in zip(kept, wrong) if not w)
    return _answer_from_units(item, sentences, right_weight, sum(u.weight for u, w in zip(kept, wrong) if w))


def _stuttering(rng: random.Random, item: Item) -> Answer:
    """One point, repeated and broken off mid-sentence: some content, not well formed."""
    unit = rng.choice(item.units)
    sentence = unit.right[rng.randrange(2)]
    tokens = tokenize(sentence)
    broken = detokenize(tokens[: max(1, len(tokens) // 2)]).rstrip(".,。，")
    return _answer_from_units(item, [sentence, sentence, broken], unit.weight * STUTTER_CREDIT, 0, fluent=False)


def _evasive(rng: random.Random, item: Item) -> Answer:
    """Repeats the question and says nothing."""
    text = rng.choice(LANGUAGES[item.language].echoes).format(q=item.question)
    return Answer(text, true_quality(0, 0, True))


def _word_salad(rng: random.Random, item: Item) -> Answer:
    """Random off-topic words."""
    language = LANGUAGES[item.language]
    words = [rng.choice(language.salad) for _ in range(rng.randint(8, 18))]
    text = language.word_separator.join(words)
    return Answer(text[0].upper() + text[1:], true_quality(0, 0, False))


#: The systems, best first: name -> how it answers. Names do not reveal the quality.
SYSTEMS: dict[str, Callable[[random.Random, Item], Answer]] = {
    "nova": _paraphrase,
    "atlas": _partial,
    "orion": _vague,
    "lyra": _confidently_wrong,
    "vega": _stuttering,
    "pixel": _evasive,
    "zephyr": _word_salad,
}


def generate(seed: int = SEED, questions: int = QUESTIONS) -> SampleData:
    """The sample's questions and every system's answers, all from one seeded generator."""
    rng = random.Random(seed)
    chinese = set(rng.sample(range(questions), round(questions * CHINESE_SHARE)))
    items: list[Item] = []
    seen: set[str] = set()
    for index in range(questions):
        for _attempt in range(20):  # prefer questions not asked before
            item = _make_item(rng, index + 1, "zh" if index in chinese else "en")
            if item.question not in seen:
                break
        seen.add(item.question)
        items.append(item)
    answers: dict[str, list[Answer]] = {name: [] for name in SYSTEMS}
    for item in items:
        for name, answer in SYSTEMS.items():
            answers[name].append(answer(rng, item))
    descriptions = {HUMAN: "the second reference answer (import it with `da-platform import human`)"}
    descriptions.update({name: (answer.__doc__ or "").strip() for name, answer in SYSTEMS.items()})
    return SampleData(tuple(items), {name: tuple(a) for name, a in answers.items()}, descriptions)


def _question_json(item: Item) -> dict:
    record: dict = {"id": item.id, "question": item.question, "references": list(item.references)}
    if item.context is not None:
        record["context"] = item.context
    record["answer_type"] = item.answer_type
    if item.yes_no is not None:
        record["yes_no"] = item.yes_no
    if item.entities is not None:
        record["entities"] = list(item.entities)
    return record


def _write_jsonl(path: Path, records: list[dict]) -> None:
    with path.open("w", encoding="utf-8", newline="\n") as out:
        for record in records:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")


def truth(data: SampleData, seed: int) -> dict:
    """The known quality: per system and question, the system means and the order they give."""
    human = {item.id: true_quality(1, 0, True) for item in data.items}
    quality = {HUMAN: human} | {
        name: {item.id: answer.quality for item, answer in zip(data.items, answers)}
        for name, answers in data.answers.items()
    }
    means = {name: round(sum(q.values()) / len(q), 2) for name, q in quality.items()}
    order = sorted(means, key=lambda name: -means[name])
    return {
        "generator": "python -m da_platform.simulation.sample_data.generate",
        "seed": seed,
        "questions": len(data.items),
        "formula": "q = 100*(0.9*coverage + 0.1*fluency) - 30*wrong, clipped to 0..100; quality = 2 + 0.95*q",
        "order": order,
        "systems": {name: {"file": None if name == HUMAN else f"{name}.jsonl", "mean_quality": means[name],
                           "description": data.descriptions[name]} for name in order},
        "quality": quality,
    }


def write(out: Path, seed: int = SEED, questions: int = QUESTIONS) -> dict:
    """Write test_set.jsonl, one <system>.jsonl per system and truth.json into ``out``."""
    data = generate(seed, questions)
    out.mkdir(parents=True, exist_ok=True)
    _write_jsonl(out / TEST_SET_FILE, [_question_json(item) for item in data.items])
    for name, answers in data.answers.items():
        _write_jsonl(out / f"{name}.jsonl",
                     [{"id": item.id, "answer": a.text} for item, a in zip(data.items, answers)])
    known = truth(data, seed)
    (out / TRUTH_FILE).write_text(json.dumps(known, ensure_ascii=False, indent=1) + "\n", encoding="utf-8",
                                  newline="\n")
    return known


@click.command()
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path(__file__).parent,
              show_default="the bundled sample_data folder", help="Folder to write into.")
@click.option("--seed", type=int, default=SEED, show_default=True)
@click.option("--questions", type=click.IntRange(min=10), default=QUESTIONS, show_default=True)
def main(out: Path, seed: int, questions: int) -> None:
    """Write the synthetic sample: test_set.jsonl, one JSONL per system, truth.json."""
    known = write(out, seed, questions)
    click.echo(f"wrote {known['questions']} questions and {len(SYSTEMS)} systems to {out}")
    for name in known["order"]:
        click.echo(f"  {name:7s} {known['systems'][name]['mean_quality']:6.2f}")


if __name__ == "__main__":
    main()
