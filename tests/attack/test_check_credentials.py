"""A card cannot send the run's credentials to a host of its choosing."""

from __future__ import annotations

from app.check.check_model import CheckStatus
from app.check.runner import CheckOptions, host_of
from app.protocol.net.auth import AuthConfig
from tests.attack.stub import card_with, hostile_agent
from tests.check.helpers import collect

SECRET = "s3cret-token"


def _card(port: int) -> dict[str, object]:
    # "localhost" is another host name than the card's 127.0.0.1, yet stays on loopback.
    return card_with([f"http://127.0.0.1:{port}/same/", f"http://localhost:{port}/other/"])


async def test_a_token_goes_only_to_interfaces_on_the_card_host() -> None:
    with hostile_agent(_card) as stub:
        options = CheckOptions(
            f"{stub.base}/",
            auth=AuthConfig.bearer(SECRET),
            headers=(("Cookie", "session=1"), ("X-Trace", "t")),
            only=("core.send",),
            budget_s=20.0,
        )
        _, results, _ = await collect(options)
    other = [s for s in stub.seen if s.path.startswith("/other/")]
    same = [s for s in stub.seen if s.path.startswith("/same/")]
    assert other and same
    assert all("authorization" not in s.headers and "cookie" not in s.headers for s in other)
    assert all(s.headers.get("x-trace") == "t" for s in other)  # a plain header still goes
    assert all(s.headers.get("authorization") == f"Bearer {SECRET}" for s in same)
    withheld = [r for r in results if r.check_id == "card.credentials-withheld"]
    assert [(r.status, r.interface) for r in withheld] == [
        (CheckStatus.WARN, f"JSONRPC 1.0 http://localhost:{stub.port}/other/")
    ]


async def test_no_warning_without_credentials() -> None:
    with hostile_agent(_card) as stub:
        _, results, _ = await collect(CheckOptions(f"{stub.base}/", only=("core.send",)))
    assert not [r for r in results if r.check_id == "card.credentials-withheld"]


def test_host_of_reads_http_and_grpc_forms() -> None:
    assert host_of("http://LocalHost.:8/x") == "localhost"
    assert host_of("127.0.0.1:50051") == "127.0.0.1"
    assert host_of("http://[::1]:8/") == "::1"
    assert host_of("http://[bad") == ""
