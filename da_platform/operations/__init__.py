"""Running a campaign on a crowdsourcing provider: launch, sync, review, pay, block, audit.

Modules: ``money`` (exact amounts and fees), ``tokens`` (idempotency keys), ``retry`` (bounded
backoff), ``provider`` (the interface both providers implement), ``mturk`` and ``prolific`` (the
clients), ``audit`` (the audit trail), ``sync`` (provider state into the database), ``review``
(the payment policy and carrying out its decisions).
"""
