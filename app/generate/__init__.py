"""Generating a runnable A2A agent project from a card (``a2a-workbench generate-server``).

Qt-free. :mod:`app.generate.project_model` holds the plan both generators (Python, Node) render.

- :mod:`.source`: the card, from a card file, a card URL or a spec's saved request.
- :mod:`.plan`: the 1.0 card the generated server publishes, validated, and the plan.
- :mod:`.write`: the project in the plan's language (:mod:`.python_project`,
  :mod:`.node_project`), written by :mod:`.output` (empty directory, atomic files), and
  the two commands that start it.
"""
