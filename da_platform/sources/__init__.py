"""Handing HITs to arriving workers (:mod:`.arrival`): which arrival resumes which assignment, what counts against
a worker's cap, when a place comes back (docs/security.md, "Arrival rules").

What an arrival is for each source (its URL, its completion) is that source's, in its folder of
:mod:`da_platform.providers`; this room applies the same rules to all of them, above the campaign settings whose
time limits it reads.
"""
