"""How an installation and its campaigns are set up: settings from the environment, where the database is,
dashboard accounts, and each campaign's stored settings, typed (the review policy among them)."""
