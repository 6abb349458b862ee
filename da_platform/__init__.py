"""da-platform: crowdsourced Direct Assessment of language systems.

The flow, as the code reads: ``da_platform.building`` imports and builds HITs (with ``hit_builder``),
``da_platform.web`` serves them to workers (``da_platform.sources``: the own pool, MTurk, Prolific),
``da_platform.operations`` runs the campaign on MTurk / Prolific (launch, sync, review, pay), and
``analysis`` turns the ratings into quality control, scores, rankings and exports.
"""

__version__ = "0.1.0"
