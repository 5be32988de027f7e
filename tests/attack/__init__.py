"""Hostile input against the new features (check, imports, replay, assertions)."""
