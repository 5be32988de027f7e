"""Known secrets sent through every path of the CLI; no output byte may carry one.

Each secret is registered by value (configured auth, URL user info, secret
``{{variables}}``, secret-named headers/cookies/query), and a hostile echo server
(tests/helpers/echo_server.py) reflects the whole request into headers, error messages,
result texts and stream events.
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.echo_server import echo_server

REPO = Path(__file__).resolve().parents[2]

TOKEN = "tok-9f8e7d6c5b4a"
KEY = "key-1a2b3c4d5e6f"
PASSWORD = "pw-5566778899"
COOKIE = "ck-1029384756"
VAR = "var-0a9b8c7d6e5f"
SCOPED = "sc-7766554433"
SECRETS = [TOKEN, KEY, PASSWORD, COOKIE, VAR, SCOPED]


def leaks(text: str) -> list[str]:
    """The secrets (or the Basic token built from one) found in ``text``."""
    found = [s for s in SECRETS if s in text]
    basic = base64.b64encode(f"user:{PASSWORD}".encode()).decode()
    return found + ([basic] if basic in text else [])


def cli(*args: str) -> tuple[int, str]:
    proc = subprocess.run(
        [sys.executable, "-m", "app", *args], capture_output=True, text=True, cwd=REPO, timeout=60
    )
    return proc.returncode, proc.stdout + proc.stderr


def with_userinfo(url: str) -> str:
    return url.replace("http://", f"http://user:{PASSWORD}@")


@pytest.mark.parametrize("mode", ["error", "result", "status", "sse"])
@pytest.mark.parametrize("output", ["jsonl", "pretty"])
@pytest.mark.parametrize(
    "auth",
    [
        ["--bearer", TOKEN],
        ["--api-key", f"X-Unusual-Name={KEY}@header"],
        ["--api-key", f"sig={KEY}@query"],
        ["--api-key", f"sid={KEY}@cookie"],
    ],
)
def test_send_never_prints_a_secret(mode: str, output: str, auth: list[str]) -> None:
    method = "SendStreamingMessage" if mode == "sse" else "SendMessage"
    with echo_server(mode) as url:
        code, text = cli(
            "send", with_userinfo(url) + f"?api_key={KEY}", "--method", method,
            "--header", f"Cookie: theme=dark; session={COOKIE}",
            "--output", output, *auth,
        )  # fmt: skip
    assert code in (0, 1, 2), text
    assert "127.0.0.1" in text  # something was printed
    assert leaks(text) == [], text


def test_send_reveal_secrets_still_shows_what_was_sent() -> None:
    with echo_server("result") as url:
        code, text = cli("send", url, "--method", "SendMessage", "--bearer", TOKEN,
                         "--reveal-secrets")  # fmt: skip
    assert code == 0
    request = json.loads(text.splitlines()[0])
    assert request["headers"]["Authorization"] == f"Bearer {TOKEN}"


def test_a_failing_url_never_shows_its_credentials() -> None:
    code, text = cli(
        "send", f"http://user:{PASSWORD}@127.0.0.1:9/?sig={KEY}", "--method", "SendMessage",
        "--api-key", f"sig={KEY}@query",
    )  # fmt: skip
    assert code == 2
    assert leaks(text) == [], text


@pytest.mark.parametrize(
    "args",
    [
        ["--header", TOKEN],
        ["--header", f": {TOKEN}"],
        ["--basic", TOKEN],
        ["--api-key", TOKEN],
    ],
)
def test_usage_errors_never_echo_a_secret(args: list[str]) -> None:
    code, text = cli("send", "http://127.0.0.1:9/", "--method", "SendMessage", *args)
    assert code == 3
    assert leaks(text) == [], text


def test_run_var_usage_error_never_echoes_the_value(tmp_path: Path) -> None:
    spec = tmp_path / "s.yaml"
    spec.write_text(_spec("http://127.0.0.1:9/"), encoding="utf-8")
    code, text = cli("run", str(spec), "--var", TOKEN)
    assert code == 3
    assert leaks(text) == [], text


def _spec(endpoint: str) -> str:
    return (
        "openapi: 3.2.0\ninfo: {title: t, version: '1'}\npaths:\n  /a2a/send:\n    post:\n"
        "      operationId: send\n      x-protocol: a2a\n      x-a2a:\n        version: '1.0'\n"
        f"        binding: JSONRPC\n        endpoint: '{endpoint}'\n"
        "        method: SendMessage\n"
        "        auth: {type: bearer, token: '{{token}}'}\n"
        "        headers: {X-Thing: '{{apiToken}}', Cookie: 'theme=dark; s={{sess}}'}\n"
        "        example: {jsonrpc: '2.0', id: 1, method: SendMessage, params: {message: "
        "{messageId: m1, role: ROLE_USER, parts: [{text: 'hi'}]}}}\n"
    )


@pytest.mark.parametrize("mode", ["error", "result"])
@pytest.mark.parametrize("output", ["jsonl", "pretty"])
def test_run_never_prints_a_variable_secret(tmp_path: Path, mode: str, output: str) -> None:
    with echo_server(mode) as url:
        port = url.rsplit(":", 1)[1].strip("/")
        scope = f"127.0.0.1-{port}"
        endpoint = url + "?key={{sig." + scope + "}}"
        spec = tmp_path / "s.yaml"
        spec.write_text(_spec(endpoint), encoding="utf-8")
        code, text = cli(
            "run", str(spec), "--output", output, "--var", f"token={TOKEN}",
            "--var", f"apiToken={VAR}", "--var", f"sess={COOKIE}",
            "--var", f"sig.{scope}={SCOPED}",
        )  # fmt: skip
    assert code in (0, 1), text
    assert "127.0.0.1" in text
    assert leaks(text) == [], text
