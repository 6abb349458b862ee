"""Meaning-change checks (``MEANING`` slots): an answer that keeps most of its words but says otherwise.

A text-overlap rater scores such a copy almost like its original (nearly every word is still there);
a person who reads it sees that it now says something else and scores it lower. Pure and deterministic:
the caller passes the answer, the question's gold entities, an :class:`EntityPool` of other questions'
entities and a seeded ``random.Random``.

Rules, tried in this order; the first that applies is used:

1. ``yes_no``: the answer's yes/no word is flipped (English *yes*/*no*, *right*/*wrong*; Chinese 是的/不是,
   对/不对, 可以/不可以).
2. ``entity``: a gold entity of the question found in the answer is replaced by an entity of another
   question written in the same script (from the pool).
3. ``number``: a number (digits; Chinese numerals before a measure word) is replaced by a different one.
4. ``negation``: a negation is removed, or one is added: the first auxiliary/modal verb is negated
   (English, one word for one where a contraction exists: *should* → *shouldn't*) or a 不 is put before
   the first verb of a fixed list (Chinese).
5. ``denial`` (fallback, always applies): the answer is introduced as false ("It is not true that …",
   "以下说法不对：…").

English rules apply to text in Latin script, Chinese rules to text in Chinese characters; words are only
ever inserted in the answer's own script, so a check never mixes scripts. Text in another script gets
the ``number`` and ``entity`` rules only; when neither applies, :class:`MeaningError` names the answer
(build such a campaign with the classic layout). The result always differs from the original.
"""
from __future__ import annotations

import random
import re
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from da_core.errors import BuildError
from da_core.text import is_character_script

METHOD_NAME = "meaning-change"
METHOD_VERSION = 1
RULES = ("yes_no", "entity", "number", "negation", "denial")

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-z\u00c0-\u024f]")

# English: word pairs flipped by the yes/no rule (case kept).
_EN_YES_NO = {"yes": "no", "no": "yes", "right": "wrong", "wrong": "right", "true": "false", "false": "true",
              "correct": "incorrect", "incorrect": "correct"}
_EN_YES_NO_RE = re.compile(r"^\W*(yes|no|right|wrong|true|false|correct|incorrect)\b", re.IGNORECASE)
_EN_AUX = ("is", "are", "was", "were", "can", "could", "should", "will", "would", "does", "do", "did",
           "has", "have", "must", "may", "might")
_EN_NEGATED = re.compile(r"\b(" + "|".join(_EN_AUX) + r")(\s+not\b|n't\b)", re.IGNORECASE)
_EN_CANNOT = re.compile(r"\b(can)not\b", re.IGNORECASE)
_EN_NEVER = re.compile(r"\b(never|always|avoid|don't|do not)\s+", re.IGNORECASE)
_EN_MODALS = ("is", "are", "was", "were", "can", "could", "should", "will", "would", "must", "may", "might")
_EN_CONTRACTED = {"is": "isn't", "are": "aren't", "was": "wasn't", "were": "weren't", "can": "can't",
                  "could": "couldn't", "should": "shouldn't", "will": "won't", "would": "wouldn't",
                  "must": "mustn't"}
_EN_AUX_RE = re.compile(r"\b(" + "|".join(_EN_MODALS) + r")\b", re.IGNORECASE)
_EN_IMPERATIVE = re.compile(r"(^|[.!?]\s+)(Make sure|Keep|Use|Let|Try|Check|Add|Give|Put|Choose|Water|Place|"
                            r"Start|Take|Turn|Plan|Store|Wear|Remember|Aim|Go|Set|Pick|Mix|Cook|Clean|Stir)\b")

# Chinese: yes/no openings and negation pairs (affirmative, negated); longest first where they overlap.
_ZH_YES_NO = (("是的", "不是"), ("不是", "是的"), ("没错", "不对"), ("不对", "没错"), ("对", "不对"),
              ("可以", "不可以"), ("不可以", "可以"), ("会", "不会"), ("不会", "会"))
_ZH_NEGATIONS = (("不要", "要"), ("不应该", "应该"), ("不需要", "需要"), ("不容易", "容易"), ("不能", "能"),
                 ("不会", "会"), ("不可以", "可以"), ("没有", "有"), ("不是", "是"), ("不适合", "适合"))
# Verbs a "不" is put before, with the compounds where the character is no verb left out.
_ZH_VERBS = tuple(re.compile(pattern) for pattern in (
    "(?<=最)适合", "适合", "应该", "需要", "可以", "(?<![重需主只想不])要", "(?<![不机学体])会",
    "(?<![不可功])能", "(?<![就还只不但总])是(?!否)", "(?<![所没只不])有(?![些时点])"))
_ZH_NUMERALS = "一二三四五六七八九十两"
_ZH_MEASURE = "个次天周年月杯克度分小种步遍层片斤块粒张瓶碗"
_ZH_NUMBER = re.compile(f"([{_ZH_NUMERALS}])(?=[{_ZH_MEASURE}])")
_DIGITS = re.compile(r"\d+")


class MeaningError(BuildError):
    """No meaning-change rule applies to an answer (e.g. a script without English or Chinese rules)."""


def script_of(text: str) -> str:
    """``"han"`` when most tokens are Chinese characters, ``"latin"`` when the text has Latin letters and
    no Chinese characters, otherwise ``"other"``."""
    if _HAN.search(text) and is_character_script(text):
        return "han"
    if _LATIN.search(text) and not _HAN.search(text):
        return "latin"
    return "other"


def method_description() -> dict:
    """What goes into ``Campaign.settings["meaning"]``: the method, its rules and their order."""
    return {"method": METHOD_NAME, "version": METHOD_VERSION, "rules_in_order": list(RULES),
            "scripts": "English rules for Latin text, Chinese rules for Chinese text; other scripts: "
                       "entity and number rules only",
            "entity_pool": "gold entities of other questions, same script only", "must_differ": True}


class EntityPool:
    """Gold entities of the test set's questions, by script, for the entity rule."""

    def __init__(self, entities: Mapping[Hashable, Iterable[str]]) -> None:
        self._by_script: dict[str, list[tuple[Hashable, str]]] = {}
        for question, names in entities.items():
            for name in names or ():
                name = name.strip()
                if name:
                    self._by_script.setdefault(script_of(name), []).append((question, name))

    def draw(self, script: str, *, exclude: Hashable, avoid: str, rng: random.Random) -> str | None:
        """A random entity of ``script`` from a question other than ``exclude``, different from ``avoid``."""
        eligible = [name for question, name in self._by_script.get(script, ())
                    if question != exclude and name.casefold() != avoid.casefold()]
        return eligible[rng.randrange(len(eligible))] if eligible else None


@dataclass(frozen=True)
class MeaningChange:
    """A changed answer and how it was made (stored as ``Slot.degradation``)."""

    text: str
    rule: str
    script: str
    start: int  # character offset in the original where the change starts
    removed: str
    inserted: str

    def record(self) -> dict:
        return {"kind": "meaning", "method": METHOD_NAME, "rule": self.rule, "script": self.script,
                "start": self.start, "removed": self.removed, "inserted": self.inserted}


def change_meaning(answer: str, *, question: Hashable, gold_entities: Sequence[str] = (),
                   pool: EntityPool | None = None, rng: random.Random) -> MeaningChange:
    """Rewrite ``answer`` by the first applicable rule (module docstring) so that it says something else."""
    if not answer.strip():
        raise MeaningError(f"the answer to question {question!r} is empty")
    script = script_of(answer)
    attempts = [
        lambda: _yes_no(answer, script),
        lambda: _entity(answer, script, question, gold_entities, pool, rng),
        lambda: _number(answer, script, rng),
        lambda: _negation(answer, script),
        lambda: _denial(answer, script),
    ]
    for rule, attempt in zip(RULES, attempts):
        change = attempt()
        if change is not None:
            start, removed, inserted = change
            text = answer[:start] + inserted + answer[start + len(removed):]
            if text != answer:
                return MeaningChange(text, rule, script, start, removed, inserted)
    raise MeaningError(f"no meaning-change rule applies to the answer to question {question!r} "
                       f"({answer[:60]!r}): rules exist for English and Chinese text, or any text with a "
                       "number or a gold entity; build this campaign with the classic layout")


_Edit = tuple[int, str, str]  # (start, removed, inserted)


def _same_case(word: str, like: str) -> str:
    if like.isupper() and len(like) > 1:
        return word.upper()
    return word[:1].upper() + word[1:] if like[:1].isupper() else word


def _yes_no(answer: str, script: str) -> _Edit | None:
    if script == "latin":
        found = _EN_YES_NO_RE.match(answer)
        if found:
            word = found.group(1)
            return found.start(1), word, _same_case(_EN_YES_NO[word.lower()], word)
    elif script == "han":
        opening = len(answer) - len(answer.lstrip())
        for said, flipped in _ZH_YES_NO:
            if answer.startswith(said, opening):
                return opening, said, flipped
    return None


def _entity(answer: str, script: str, question: Hashable, gold: Sequence[str], pool: EntityPool | None,
            rng: random.Random) -> _Edit | None:
    if pool is None:
        return None
    for name in sorted({g.strip() for g in gold if g and g.strip()}, key=lambda g: (-len(g), g)):
        start = answer.find(name) if script == "han" else answer.casefold().find(name.casefold())
        if start < 0 or script_of(name) != script:
            continue
        other = pool.draw(script, exclude=question, avoid=name, rng=rng)
        if other is not None:
            return start, answer[start:start + len(name)], other
    return None


def _number(answer: str, script: str, rng: random.Random) -> _Edit | None:
    found = _DIGITS.search(answer)
    if found:
        value = int(found.group())
        choices = [v for v in {value + 1, value + 2, value * 2, max(0, value - 1), value * 3 + 1} if v != value]
        new = str(sorted(choices)[rng.randrange(len(choices))])
        return found.start(), found.group(), new
    if script == "han":
        found = _ZH_NUMBER.search(answer)
        if found:
            others = [c for c in "二三四五六七八九十" if c != found.group(1)]
            return found.start(1), found.group(1), others[rng.randrange(len(others))]
    return None


def _negation(answer: str, script: str) -> _Edit | None:
    if script == "latin":
        found = _EN_NEGATED.search(answer)
        if found:  # "is not" / "isn't" -> "is"
            return found.end(1), found.group(2), ""
        found = _EN_CANNOT.search(answer)
        if found:
            return found.start(), found.group(), found.group(1)
        found = _EN_NEVER.search(answer)
        if found:  # "never X" / "always X" / "avoid X" -> "always X" / "never X" / "prefer X"
            replacement = {"never": "always", "always": "never", "avoid": "prefer"}.get(found.group(1).lower())
            return found.start(), found.group(), (_same_case(replacement, found.group(1)) + " "
                                                  if replacement else "")
        found = _EN_AUX_RE.search(answer)
        if found:  # one word for one ("should" -> "shouldn't"): the answer keeps its number of words
            word = found.group(1)
            negated = _EN_CONTRACTED.get(word.lower())
            return (found.start(), word, _same_case(negated, word)) if negated else (found.end(), "", " not")
        found = _EN_IMPERATIVE.search(answer)
        if found:
            verb = found.group(2)
            return found.start(2), verb, "Do not " + verb[:1].lower() + verb[1:]
    elif script == "han":
        for negated, affirmative in _ZH_NEGATIONS:
            for found in re.finditer(re.escape(negated), answer):
                start = found.start()
                if answer[max(0, start - len(affirmative)):start] != affirmative:  # not "有没有" (A-not-A)
                    return start, negated, affirmative
        for verb in _ZH_VERBS:
            found = verb.search(answer)
            if found:
                return found.start(), "", "不"
    return None


def _denial(answer: str, script: str) -> _Edit | None:
    if script == "latin":
        first = answer[:1]
        lowered = first.lower() if answer[1:2].islower() else first
        return 0, first, "It is not true that " + lowered
    if script == "han":
        return 0, "", "以下说法不对："
    return None
