"""da-platform: crowdsourced Direct Assessment of language systems.

The flow, as the code reads: ``building`` imports test sets and builds HITs (with ``hit_builder``),
``web`` serves them to workers (``sources``: the own pool, MTurk, Prolific; ``rating``: the order of
the slots and storing each rating), ``operations`` launches the campaign on MTurk / Prolific and
syncs it back, ``review`` decides about workers (pay, reject, bonus, block), ``results`` turns the
ratings into the campaign's analysis (with ``analysis``) and ``exports`` into files. ``cli`` drives
it all; ``simulation`` (crowds, the demo) is no part of the product. Each folder's ``__init__``
says what belongs there; ``lint-imports`` keeps the arrows pointing down.
"""

__version__ = "0.1.0"
