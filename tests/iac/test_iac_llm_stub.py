"""The LLM stub behind the iac-code peer answers both forms of a chat completion the way the
``openai`` client reads them (iac-code streams; the plain form is its fallback)."""

from __future__ import annotations

import json

import httpx

from tests.peers.iac_llm_stub import (
    API_KEY,
    MODEL,
    REPLY_PREFIX,
    SLOW_DEFAULT_S,
    running_llm_stub,
    slow_seconds,
)


def chat(stream: bool) -> dict[str, object]:
    content = [{"type": "text", "text": "hi"}]
    return {"model": MODEL, "stream": stream, "messages": [
        {"role": "system", "content": "be brief"}, {"role": "user", "content": content},
    ]}  # fmt: skip


def test_a_plain_completion_is_one_json_body() -> None:
    with running_llm_stub() as stub, httpx.Client(trust_env=False) as client:
        headers = {"Authorization": f"Bearer {API_KEY}"}
        response = client.post(f"{stub.base_url}/chat/completions", json=chat(False),
                               headers=headers)  # fmt: skip
        assert response.status_code == 200
        (choice,) = response.json()["choices"]
        assert choice["message"] == {"role": "assistant", "content": REPLY_PREFIX + "hi"}
        assert choice["finish_reason"] == "stop"
        assert [call.authorization for call in stub.calls] == [f"Bearer {API_KEY}"]
        models = client.get(f"{stub.base_url}/models").json()
        assert [m["id"] for m in models["data"]] == [MODEL]


def test_a_streamed_completion_is_chunks_then_done() -> None:
    with running_llm_stub() as stub, httpx.Client(trust_env=False) as client:
        response = client.post(f"{stub.base_url}/chat/completions", json=chat(True))
        assert response.headers["content-type"] == "text/event-stream"
        data = [line[6:] for line in response.text.splitlines() if line.startswith("data: ")]
        assert data[-1] == "[DONE]"
        chunks = [json.loads(item) for item in data[:-1]]
        text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks if c["choices"])
        assert text == REPLY_PREFIX + "hi"
        assert [c["choices"][0]["finish_reason"] for c in chunks if c["choices"]][-1] == "stop"
        assert chunks[-1]["usage"]["total_tokens"] == 2


def test_slow_takes_the_seconds_it_names() -> None:
    assert slow_seconds("slow 2") == 2.0
    assert slow_seconds("slow") == SLOW_DEFAULT_S
    assert slow_seconds("slowly now") is None
    assert slow_seconds("hello") is None
