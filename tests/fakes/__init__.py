"""Fake external services for the tests, all served on 127.0.0.1 (never the real network)."""
