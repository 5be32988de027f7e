"""The exceptions the workbench raises on purpose, under one base.

What happens on the wire is never an exception: it is an ``ExchangeError`` event
(``app/protocol/events.py``). Exceptions are for callers that asked for something that
cannot be done. Each subclass lives in the module that raises it and derives from a class
here; this module imports nothing from ``app`` so every layer (protocol, spec, commands,
demo, ui) may import it. Who raises each class and who catches it is in its docstring.

This is the one drawing of the tree (``docs/ARCHITECTURE.md`` §5.2 points here);
``tests/test_error_tree.py`` checks names, parents and modules against the classes::

    WorkbenchError           app.errors: base of every exception raised on purpose
    ├── UsageError           app.errors: the input cannot be used; nothing was sent; CLI exit 3
    │   ├── ScopeError       app.spec.variables: a scoped secret used out of its scope
    │   ├── MissingVariable  app.spec.variables: a {{variable}} no source resolves
    │   ├── JwksError        app.protocol.card.jwks: the text is not a JWKS (also ValueError)
    │   ├── CliUsageError    app.commands.cli: bad command-line arguments or input files
    │   ├── SourceError      app.generate.source: no usable card or spec to generate from
    │   ├── OutputDirError   app.generate.output_dir: the project directory cannot take it
    │   ├── ConversionError  app.protocol.methods.convert: no request of the other version
    │   ├── FixtureError     app.replay.fixture: a replay fixture that cannot be read
    │   └── HostRefused      app.commands.mcp.allow_list: an MCP tool's host not allowed
    ├── CardUnreachable      app.generate.source: a card URL gave no card (exit 2)
    ├── GeneratorMissing     app.generate.write: no generator for a language
    ├── SpecError            app.spec.spec_text: not a usable OpenAPI document
    ├── XA2AError            app.spec.xa2a: an invalid x-a2a block (also ValueError)
    ├── NoKeyring            app.spec.variables: no usable OS keyring
    ├── SessionError         app.session: session.json unreadable or not a session
    ├── HistoryUnavailable   app.history.store: no usable history file
    ├── NewerSchemaError     app.history.schema: from a newer app (→ HistoryUnavailable)
    ├── OAuthError           app.protocol.oauth.oauth_errors: no token (CLI exit 2)
    ├── ImportSourceError    app.imports.raw: an unreadable source (also ValueError)
    ├── PortInUseError       app.demo.demo_server: the demo agent cannot bind a port (exit 1)
    └── ListenError          app.replay.replay_server: replay cannot bind a port (exit 1)

Programming errors stay ordinary Python exceptions (``ValueError``, ``TypeError``); private
control-flow exceptions stay private to their module. Outside the tree on purpose, each
caught by its own package, never shown as it is::

    JsonLimitError           app.protocol.wire.jsonparse: JSON beyond the limits (ValueError)
    NotStepwise              app.protocol.wire.jsonsteps: parse the text whole (ValueError)
    PathError                app.spec.json_paths: no JSON Pointer or JSONPath (ValueError)
    AuthShapeError           app.spec.xa2a_auth: becomes an XA2AError (ValueError)
    BudgetExhausted          app.check.context: the check run's time is up (control flow)

An exception nobody raised on purpose is a bug: it is logged at ERROR with its traceback, the
exchange reports it as an ``internal`` error, and the GUI shows it in the status bar with
*Copy details* (``app/ui/shell/unexpected.py``).
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
