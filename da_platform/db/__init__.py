"""What is stored: engine and migrations, the models and their states (the worker sources' names among them:
``states.WorkerSource``), rows that must exist, the audit trail."""
