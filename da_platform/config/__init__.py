"""How an installation and its campaigns are set up: settings from the environment, where the database is,
dashboard accounts, and each campaign's stored settings, typed (the review policy among them) and changed by a
command's options (``setting_changes``), with the one rule that applies the worker sources' time limits
(``time_limits``: the arrival and the rating path both read it, so it sits below them). Above
:mod:`da_platform.providers`, whose sources' settings it stores."""
