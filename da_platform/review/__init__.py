"""Decisions about workers: the review policy, one researcher's decision, policy runs, carrying decisions out."""
