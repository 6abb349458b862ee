"""Hand-made crowds whose answers are known, as a :class:`RatingsTable` with rating evidence: honest
workers and several kinds of bot (see ``crowd_table``)."""
from __future__ import annotations

import numpy as np

from analysis.evidence import RatingEvidence, character_overlap
from analysis.table import RatingsTable

WORDS = ["river", "mountain", "city", "museum", "bridge", "station", "harbour", "castle", "garden", "library",
         "market", "tower", "island", "valley", "forest", "desert", "lake", "temple", "palace", "school"]
CROWD = {**{f"honest-{k}": "honest" for k in range(5)}, "overlap-bot": "overlap-bot", "paced-bot": "paced-bot",
         "oracle": "oracle", "meaning-blind": "meaning-blind", "random": "random"}
"""One worker of each kind ``crowd_table`` knows (five honest)."""
N_ITEMS = 30  # SYSTEM items per worker; 10 BAD_REF and 10 MEANING checks are made from the first 20


def make_items(rng: np.random.Generator) -> list[dict]:
    """Items with a reference, a candidate whose overlap with it varies, and a true quality unrelated to it."""
    items = []
    for i in range(N_ITEMS):
        reference = " ".join(rng.choice(WORDS, size=14)) + f" in {1800 + i}"
        words = reference.split()
        for k in rng.choice(len(words), size=int(rng.integers(0, 10)), replace=False):
            words[k] = str(rng.choice(WORDS))
        candidate = " ".join(words)
        items.append({"reference": reference, "candidate": candidate, "quality": float(rng.uniform(20, 90))})
    return items


def degrade(text: str) -> str:
    """BAD_REF: drop every other word (much less overlap)."""
    return " ".join(text.split()[::2])


def change_meaning(text: str) -> str:
    """MEANING: the same words with the year changed (nearly the same overlap, another fact)."""
    words = text.split()
    words[-1] = str(int(words[-1]) + 7)
    return " ".join(words)


def human_record(rng, seconds: float, interactions: bool = True, automated: bool = False) -> dict:
    """A record as today's page sends it; ``automated``: from a driven, headless browser (every trace seen)."""
    shown = int(seconds * 1000)
    traces = int(automated)
    return {"v": 1, "slot": "x", "first_input_ms": int(shown * 0.7) if interactions else None,
            "pointer": int(rng.integers(1, 20)) if interactions else 0, "touch": 0, "key": 0, "hidden_ms": 0,
            "blur_ms": 0, "paste": 0, "copy": 0, "shown_ms": shown,
            "webdriver": traces, "headless_ua": traces, "software_gl": traces}


def crowd_table(kinds: dict[str, str], seed: int = 7) -> RatingsTable:
    """One HIT per worker: 30 SYSTEM items, 10 BAD_REF and 10 MEANING checks, rated as each kind does.

    honest: true quality + noise, checks lower, human timing and a record per rating;
    overlap-bot: 100 × overlap, no record, 0.2 s per item; paced-bot: 100 × overlap with forged human
    records; oracle: true quality, records without any event and 6 s ± 1 % per item;
    meaning-blind: like honest but MEANING copies scored a little higher than their originals;
    random: uniform scores with human records; driven-honest: like honest, from a driven headless browser.
    """
    rng = np.random.default_rng(seed)
    items = make_items(rng)
    columns: dict[str, list] = {c: [] for c in ("group", "worker", "hit", "system", "item", "slot_type", "slot",
                                                "original_slot", "score", "seconds")}
    statuses, records, candidates, references = [], [], [], []
    for worker, kind in kinds.items():
        slots = [("SYSTEM", i, items[i]["candidate"], "") for i in range(N_ITEMS)]
        slots += [("BAD_REF", i, degrade(items[i]["candidate"]), f"{worker}-{i}") for i in range(10)]
        slots += [("MEANING", i, change_meaning(items[i]["candidate"]), f"{worker}-{i}") for i in range(10, 20)]
        given_scores: dict[int, int] = {}
        for n, (slot_type, i, candidate, original) in enumerate(slots):
            reference = items[i]["reference"]
            overlap = character_overlap(candidate, reference)
            quality = items[i]["quality"] - {"SYSTEM": 0, "BAD_REF": 35, "MEANING": 40}[slot_type]
            words = len(candidate.split()) + len(reference.split())
            human_seconds = (2.0 + words / 3.8) * float(rng.lognormal(0, 0.35))
            if kind in ("overlap-bot", "paced-bot"):
                score = round(100 * overlap)
            elif kind == "random":
                score = int(rng.integers(0, 101))
            elif kind == "meaning-blind" and slot_type == "MEANING":
                score = min(100, given_scores[i] + int(rng.integers(1, 4)))
            else:
                score = round(float(np.clip(quality + rng.normal(0, 3 if kind == "oracle" else 6), 0, 100)))
            if slot_type == "SYSTEM":
                given_scores[i] = score
            status, record, seconds = ("valid", human_record(rng, human_seconds, automated=kind == "driven-honest"),
                                       human_seconds + 0.3)
            if kind == "overlap-bot":
                status, record, seconds = "missing", None, 0.2
            elif kind == "oracle":
                record = human_record(rng, 6.0 * float(rng.uniform(0.99, 1.01)), interactions=False)
                seconds = record["shown_ms"] / 1000 + 0.3  # it waits (the server sees the time it claims)
            for column, value in (("group", "c"), ("worker", worker), ("hit", f"h-{worker}"), ("system", "S"),
                                  ("item", f"q{i}"), ("slot_type", slot_type),
                                  ("slot", f"{worker}-{i}" if slot_type == "SYSTEM" else f"{worker}-{slot_type}{n}"),
                                  ("original_slot", original), ("score", int(score)), ("seconds", seconds)):
                columns[column].append(value)
            statuses.append(status)
            records.append(record)
            candidates.append(candidate)
            references.append(reference)
    evidence = RatingEvidence.from_rows(statuses, records, candidates, references, reference_shown=True,
                                        server_seconds=columns["seconds"])
    return RatingsTable.from_columns(**columns, evidence=evidence)
