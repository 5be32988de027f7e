"""A pasted ``curl`` command line (or several) → :class:`~app.imports.raw.RawRequest` values.

Understood as curl does (``man curl``): ``-X/--request``, ``-H/--header``, ``-d/--data``,
``--data-ascii``, ``--data-raw``, ``--data-binary``, ``--data-urlencode`` (several are joined
with ``&``), ``--json`` (body plus JSON ``Content-Type``/``Accept``, POST), ``-G/--get``
(the data goes into the query), ``-I/--head``, ``-u/--user user:password``,
``--oauth2-bearer``, ``--url`` and a bare URL (with its query). Backslash, caret and
backtick line continuations (POSIX shells, cmd.exe, PowerShell) are joined first; words
are split with :mod:`shlex` (POSIX quoting). Options that only change how curl runs
(``-s``, ``-v``, ``-L``, ``--compressed``…) are ignored; ``@file`` data cannot be read from
a paste and is reported.
"""

from __future__ import annotations

import re
import shlex
from urllib.parse import quote_plus

from app.imports.raw import ImportSourceError, RawAuth, RawRequest, Source

_DATA = {"-d", "--data", "--data-ascii", "--data-raw", "--data-binary"}
_WITH_VALUE = {
    "-A", "--user-agent", "-e", "--referer", "-b", "--cookie", "-c", "--cookie-jar",
    "-o", "--output", "-m", "--max-time", "--connect-timeout", "--retry", "-x", "--proxy",
    "--cacert", "--cert", "--key", "-w", "--write-out", "--resolve", "-T", "--upload-file",
    "-F", "--form", "--limit-rate", "--max-redirs", "-r", "--range",
}  # fmt: skip
_SHORT_WITH_VALUE = {"X", "H", "d", "u", "A", "e", "b", "c", "o", "m", "x", "w", "T", "F", "r"}
_CONTINUATION = re.compile(r"[\\^`][ \t]*\r?\n")


def parse_curl(text: str) -> Source:
    """Every ``curl`` command in ``text`` (one per line once continuations are joined).

    Raises:
        ImportSourceError: no curl command, unbalanced quotes, or a command without a URL.
    """
    joined = _CONTINUATION.sub(" ", text)
    commands = [line.strip() for line in joined.splitlines() if line.strip()]
    commands = [c for c in commands if not c.startswith("#")]
    if not commands:
        raise ImportSourceError("Paste a curl command line (it starts with 'curl')")
    requests = []
    for n, command in enumerate(commands, start=1):
        place = f"command {n}" if len(commands) > 1 else "command"
        try:
            words = shlex.split(command)
        except ValueError as exc:
            raise ImportSourceError(f"{place}: {exc} (check the quotes)") from exc
        if not words or words[0].rsplit("/", 1)[-1] not in ("curl", "curl.exe"):
            raise ImportSourceError(f"{place}: does not start with 'curl': {command[:40]!r}")
        requests.append(_request(words[1:], place))
    return Source("curl", "Imported from curl", tuple(requests))


def _expand_short(words: list[str]) -> list[str]:
    """``-XPOST`` → ``-X POST``, ``-sSL`` → ``-s -S -L`` (curl's short-option rules)."""
    out: list[str] = []
    for word in words:
        if word.startswith("-") and not word.startswith("--") and len(word) > 2:
            letters = word[1:]
            for i, letter in enumerate(letters):
                if letter in _SHORT_WITH_VALUE:
                    out.append(f"-{letter}")
                    if letters[i + 1 :]:
                        out.append(letters[i + 1 :])
                    break
                out.append(f"-{letter}")
        else:
            out.append(word)
    return out


def _request(words: list[str], place: str) -> RawRequest:
    words = _expand_short(words)
    method = ""
    url = ""
    headers: list[tuple[str, str]] = []
    data: list[str] = []
    notes: list[str] = []
    auth = RawAuth()
    get = head = json_mode = False
    i = 0

    def value() -> str:
        nonlocal i
        i += 1
        if i >= len(words):
            raise ImportSourceError(f"{place}: {words[i - 1]} needs a value")
        return words[i]

    while i < len(words):
        word = words[i]
        if word in ("-X", "--request"):
            method = value().upper()
        elif word in ("-H", "--header"):
            name, colon, text = value().partition(":")
            if colon:
                headers.append((name.strip(), text.strip()))
        elif word in _DATA:
            piece = value()
            if piece.startswith("@") and word != "--data-raw":
                notes.append(f"{word} {piece}: data from a file cannot be read from a paste")
            else:
                data.append(piece)
        elif word == "--data-urlencode":
            data.append(_urlencode(value()))
        elif word == "--json":
            data.append(value())
            json_mode = True
        elif word in ("-u", "--user"):
            user, _, password = value().partition(":")
            auth = RawAuth("basic", (("username", user), ("password", password)))
        elif word == "--oauth2-bearer":
            auth = RawAuth("bearer", (("token", value()),))
        elif word == "--url":
            url = value()
        elif word in ("-G", "--get"):
            get = True
        elif word in ("-I", "--head"):
            head = True
        elif word in ("-k", "--insecure"):
            notes.append("-k (no TLS verification) not imported: set it in the tab's TLS panel")
        elif word in ("-b", "--cookie"):
            value()
            notes.append("cookies (-b) dropped (session state)")
        elif word in _WITH_VALUE:
            value()
        elif word.startswith("-"):
            pass  # -s, -v, -L, --compressed …: how curl runs, not what it sends
        elif not url:
            url = word
        i += 1
    if not url:
        raise ImportSourceError(f"{place}: no URL")
    if "://" not in url and not url.startswith("{{"):
        url = "http://" + url  # curl's own default scheme
    body = "&".join(data)
    if json_mode:
        headers = _default(headers, "Content-Type", "application/json")
        headers = _default(headers, "Accept", "application/json")
    if get and body:
        url += ("&" if "?" in url else "?") + body
        body = ""
    if not method:
        method = "HEAD" if head else "POST" if body else "GET"
    return RawRequest(method, url, tuple(headers), body, place=place, auth=auth, notes=tuple(notes))


def _default(headers: list[tuple[str, str]], name: str, value: str) -> list[tuple[str, str]]:
    if any(n.lower() == name.lower() for n, _ in headers):
        return headers
    return [*headers, (name, value)]


def _urlencode(piece: str) -> str:
    """``--data-urlencode`` forms: ``content``, ``=content``, ``name=content``."""
    if "=" not in piece:
        return quote_plus(piece)
    name, _, content = piece.partition("=")
    return f"{name}={quote_plus(content)}" if name else quote_plus(content)
