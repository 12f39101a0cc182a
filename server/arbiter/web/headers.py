"""The security headers of every answer of the web pages (docs/web.md, "Headers").

``SecurityHeaders`` is a plain ASGI middleware (it adds headers to the start of each response and
leaves the body alone, so event streams stream as before). The pages load their script and
style sheet from ``/static`` on the same host and have no inline script or style, so the policy
allows nothing from elsewhere; the boards are inline SVG (presentation attributes, no style).
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: What a page may load and run: only its own host's files; never framed.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)

#: The embeddable replay (``/embed/matches/ID``): the same, but any site may frame it.
EMBED_POLICY = CONTENT_SECURITY_POLICY.replace("frame-ancestors 'none'", "frame-ancestors *")

HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
    (b"cross-origin-opener-policy", b"same-origin"),
)


class SecurityHeaders:
    """Adds ``HEADERS`` to every HTTP response of ``app`` (a header the app set itself is kept)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                if b"content-security-policy" in present:
                    # A route with a policy of its own (the embeddable replay) decides its framing.
                    present.add(b"x-frame-options")
                headers.extend((name, value) for name, value in HEADERS if name not in present)
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)


__all__ = ["CONTENT_SECURITY_POLICY", "EMBED_POLICY", "SecurityHeaders"]
