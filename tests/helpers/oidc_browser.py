"""A scripted "system browser" for the OAuth tests: fills oidc-provider's login and consent.

:func:`browse` follows a URL the way a person would: it submits the first form of each page
(login: any user name and password; consent: *Continue*; device: *Continue* for the user
code) and follows redirects, including the last one to the app's loopback redirect URI.
With ``deny=True`` it clicks the page's abort link or button instead of consenting.
"""

from __future__ import annotations

from html.parser import HTMLParser
from urllib.parse import urljoin

import httpx

MAX_PAGES = 12


class _Forms(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.forms: list[dict[str, object]] = []
        self.links: list[str] = []
        self._current: dict[str, object] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form":
            self._current = {"action": a.get("action", ""), "id": a.get("id", ""), "fields": {}}
            self.forms.append(self._current)
        elif tag == "input" and self._current is not None and a.get("name"):
            fields = self._current["fields"]
            assert isinstance(fields, dict)
            kind = a.get("type", "text")
            value = a.get("value", "")
            if kind == "password" or (kind == "text" and a["name"] == "login"):
                value = value or "alice"
            fields[a["name"]] = value
        elif tag == "a" and a.get("href"):
            self.links.append(a["href"])

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._current = None


async def browse(url: str, *, deny: bool = False) -> None:
    """Log in and consent (or deny) at the provider, starting at ``url``."""
    async with httpx.AsyncClient(follow_redirects=True, timeout=10.0) as client:
        response = await client.get(url)
        for _ in range(MAX_PAGES):
            if "text/html" not in response.headers.get("content-type", ""):
                return
            page = _Forms()
            page.feed(response.text)
            forms = [f for f in page.forms if f["action"]]
            if not forms:
                return  # a final page: the loopback receiver's, or the device "done" page
            form = forms[0]
            fields = dict(form["fields"])  # type: ignore[call-overload]
            abort = next((link for link in page.links if "/abort" in link), "")
            if deny and abort:
                response = await client.get(urljoin(str(response.url), abort))
                continue
            denied = deny and form["id"] == "op.deviceConfirmForm"
            if denied:
                fields["abort"] = "yes"
            action = urljoin(str(response.url), str(form["action"]))
            response = await client.post(action, data=fields)
            if denied:
                return  # the provider offers the code form again: a person would stop here
        raise AssertionError(f"the provider's pages did not end after {MAX_PAGES} forms")
