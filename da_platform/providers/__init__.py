"""The worker sources, one folder each (``pool/``, ``mturk/``, ``prolific/``) behind one interface
(:class:`~da_platform.providers.definition.SourceDefinition`: arrival, client, settings, time limit, costs, launch
plan), registered under :class:`~da_platform.db.states.WorkerSource` (:mod:`.registry`); and what they share:
the arrival and client interfaces, signed tokens, money and fees, retries, idempotency, the public URL check.
Above the database (an arrival finds its HIT), below the campaign settings that store a source's settings."""
