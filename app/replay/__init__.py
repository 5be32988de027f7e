"""Recorded exchanges as replayable fixtures, and the mock agent that serves them. Qt-free."""
