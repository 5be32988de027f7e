"""A2A Workbench: a desktop request debugger for the A2A (Agent2Agent) protocol."""

__version__ = "0.1.0"
