"""The ``voltage`` command: one entry point, a subcommand per job."""
