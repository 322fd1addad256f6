"""Shared test fixtures that more than one test package uses."""
