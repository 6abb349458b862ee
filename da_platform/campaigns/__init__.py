"""A built campaign's state: status and housekeeping, progress, assignments under way, the preview of a slot; the
lists of campaigns, test sets and systems."""
