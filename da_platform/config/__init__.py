"""How an installation is set up: settings from the environment, where the database is, dashboard accounts."""
