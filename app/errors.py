"""The exceptions the workbench raises on purpose, under one base.

What happens on the wire is never an exception: it is an ``ExchangeError`` event
(``app/protocol/events.py``). Exceptions are for callers that asked for something that
cannot be done. Each subclass lives in the module that raises it and derives from a class
here; this module imports nothing from ``app`` so every layer (protocol, spec, commands,
demo, ui) may import it. See ``docs/ARCHITECTURE.md`` §5::

    WorkbenchError                 base of every exception raised on purpose
    ├── UsageError                 the input cannot be used; nothing was sent; CLI exit 3
    │   ├── ScopeError             app.spec.variables: a scoped secret used out of its scope
    │   ├── JwksError              app.protocol.card.jwks: the text is not a JWKS (also ValueError)
    │   ├── CliUsageError          app.commands.cli: bad command-line arguments or input files
    │   ├── SourceError            app.generate.source: not a usable card or spec to generate from
    │   └── OutputDirError         app.generate.output_dir: the project directory cannot take it
    ├── CardUnreachable            app.generate.source: a card URL gave no card
    ├── GeneratorMissing           app.generate.write: no generator for a language
    ├── SpecError                  app.spec.spec_text: a file cannot be used as an OpenAPI document
    ├── XA2AError                  app.spec.xa2a: an invalid x-a2a block (also ValueError)
    ├── NoKeyring                  app.spec.variables: no usable OS keyring
    ├── SessionError               app.session: session.json unreadable or not a session
    ├── HistoryUnavailable         app.history.store: the history file is from a newer app
    └── PortInUseError             app.demo.demo_server: the demo agent cannot bind a port

Programming errors stay ordinary Python exceptions (``ValueError``, ``TypeError``); private
control-flow exceptions stay private to their module.
"""

from __future__ import annotations


class WorkbenchError(Exception):
    """Base of every exception the workbench raises on purpose.

    Raised only through subclasses. Catch it where any expected failure should become a
    message (a CLI ``main``, a GUI action) rather than a traceback.
    """


class UsageError(WorkbenchError):
    """The input cannot be used to build a request; nothing was sent.

    Raised by the request builders (``app.protocol.request``, ``auth``, ``rest_route``, the
    transports' call builders, ``app.spec.requests`` / ``variables`` / ``snippets``) when a
    body, URL, header or variable is unusable. Caught by the exchange (reported as a
    ``usage`` ``ExchangeError``), by the CLI commands (exit status 3) and by the request tab
    and document view (shown in the message bar).
    """
