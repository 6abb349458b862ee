"""Talking to MTurk and Prolific: their one interface, clients, settings, money and fees, retries, idempotency."""
