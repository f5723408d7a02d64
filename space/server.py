"""The server: uvicorn, with settings that bound what a client may send and for how long.

- Request bodies: at most MAX_REQUEST_BYTES, refused unread with 413 (``RequestSizeLimit``, an
  ASGI middleware in front of Gradio's app); request heads: uvicorn's
  ``h11_max_incomplete_event_size``.
- Connections: at most MAX_CONNECTIONS (uvicorn's ``limit_concurrency`` answers 503 beyond), idle
  ones closed HEADER_SECONDS after a response (``timeout_keep_alive``).
- Slow clients: a client that opens connections and sends nothing, or its head a byte at a time
  (slow-loris), would hold a file descriptor each, for ever: 20,000 of them left no room for
  anyone. uvicorn has no setting for how long a request may take to arrive (every byte resets its
  keep-alive timer), and an ASGI middleware runs only once the head has arrived. So
  ``RequestDeadlines`` wraps the protocol that uvicorn's public ``http`` setting names, by
  composition, through asyncio's Protocol interface alone: each request's head must arrive within
  HEADER_SECONDS of its first byte (of the connection, for the first), the whole request within
  REQUEST_SECONDS, and at most MAX_IDLE_CONNECTIONS may wait for a head at once.
"""

import asyncio
import collections
import errno
import os
import socket
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

import uvicorn
from fastapi import FastAPI
from starlette.middleware import Middleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from .requests import MAX_BYTES

if TYPE_CHECKING:
    import gradio as gr

MAX_REQUEST_BYTES = MAX_BYTES + 1_000_000  # the text plus room for its JSON encoding
MAX_HEAD_BYTES = 64 * 1024
HEADER_SECONDS = 5  # to send a request's head, from its first byte (or the connection's start)
REQUEST_SECONDS = 60  # to send a whole request, body included (10 MB takes 0.8 s at 100 Mbit/s)
MAX_IDLE_CONNECTIONS = 256  # waiting for a head; a new one beyond closes the one waiting longest
MAX_CONNECTIONS = 4096  # uvicorn answers 503 beyond, well below the 20,000 file descriptors
QUEUE_SIZE = 128  # requests waiting in Gradio's queue, each up to MAX_REQUEST_BYTES


class RequestSizeLimit:
    """ASGI middleware: a request whose body is over ``limit`` bytes gets 413 before the app reads
    any of it, by its Content-Length or, for a body sent in chunks, once the chunks pass the limit."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None:
            if not length.isdigit() or int(length) > self.limit:
                return await self.refuse(send)
            return await self.app(scope, receive, send)
        messages: list[Message] = []
        size = 0
        while True:  # no length given: read the chunks, up to the limit, then hand them on
            message = await receive()
            messages.append(message)
            size += len(message.get("body", b""))
            if size > self.limit:
                return await self.refuse(send)
            if message["type"] != "http.request" or not message.get("more_body"):
                break

        async def replay() -> Message:
            return messages.pop(0) if messages else await receive()

        return await self.app(scope, replay, send)

    async def refuse(self, send: Send) -> None:
        """Answer 413, saying how much the Space takes."""
        text = f"request body larger than {self.limit:,} bytes: the Space takes {MAX_BYTES // 1_000_000} MB of text"
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"text/plain; charset=utf-8")]})
        await send({"type": "http.response.body", "body": text.encode()})


class RequestDeadlines(asyncio.Protocol):
    """uvicorn's HTTP/1.1 protocol, wrapped: every asyncio event goes on to it, and the bytes a
    client sends are followed just enough to find where each request's head and body end (the
    head's blank line, then Content-Length bytes, or chunks up to the last). A head that takes more
    than HEADER_SECONDS, or a request more than REQUEST_SECONDS, closes the connection."""

    # Connections waiting for their first byte, oldest first: one table for every connection.
    waiting: ClassVar[collections.OrderedDict["RequestDeadlines", None]] = collections.OrderedDict()

    def __init__(self, **uvicorn_arguments: Any) -> None:
        self.inner = H11Protocol(**uvicorn_arguments)
        self.loop = asyncio.get_event_loop()
        self.transport: asyncio.Transport | None = None
        self.deadlines: list[asyncio.TimerHandle] = []
        self.state, self.head, self.body = "idle", b"", 0  # idle, head, body or chunked

    # asyncio gives a stream protocol an asyncio.Transport, the type uvicorn's H11Protocol declares too.
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self.transport = transport
        self.inner.connection_made(transport)
        self.waiting[self] = None
        while len(self.waiting) > MAX_IDLE_CONNECTIONS:
            self.waiting.popitem(last=False)[0]._close()
        self._start_request()

    def data_received(self, data: bytes) -> None:
        self.waiting.pop(self, None)
        self._follow(data)
        self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        # uvicorn's answer goes back to asyncio as it is, whatever a later uvicorn makes it (now None).
        return self.inner.eof_received()  # type: ignore[func-returns-value]

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop()
        self.inner.connection_lost(exc)

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()

    def _close(self) -> None:
        if self.transport is not None:  # always: a connection is timed only once it is made
            self.transport.close()

    def _start_request(self) -> None:
        """A request begins (its first byte, or the connection): its head and its whole are timed."""
        self._stop()
        self.state, self.head = "head", b""
        self.deadlines = [self.loop.call_later(HEADER_SECONDS, self._close),
                          self.loop.call_later(REQUEST_SECONDS, self._close)]

    def _follow(self, data: bytes) -> None:
        while data:
            if self.state == "idle":
                self._start_request()
            if self.state == "head":
                self.head += data
                end = self.head.find(b"\r\n\r\n")
                if end < 0:
                    self.head = self.head[-MAX_HEAD_BYTES:]  # uvicorn answers a longer head with 400
                    return
                data, head = self.head[end + 4 :], self.head[: end + 4]
                self.deadlines[0].cancel()
                self.body, chunked = self._body_of(head)
                self.state, self.head = ("chunked" if chunked else "body"), b""
            elif self.state == "chunked":
                self.head = self.head[-6:] + data
                if b"\r\n0\r\n\r\n" in self.head or self.head.startswith(b"0\r\n\r\n"):
                    self._received()
                return
            if self.state == "body":
                taken = min(self.body, len(data))
                self.body -= taken
                data = data[taken:]
                if self.body == 0:
                    self._received()

    def _received(self) -> None:
        """A whole request is in: until the next one's first byte, uvicorn's keep-alive timeout
        bounds the wait, after the response."""
        self._stop()
        self.state = "idle"

    @staticmethod
    def _body_of(head: bytes) -> tuple[int, bool]:
        """(bytes of body to come, whether it comes in chunks) from a head."""
        length, chunked = 0, False
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            name = name.strip().lower()
            if name == b"content-length" and value.strip().isdigit():
                length = int(value.strip())
            elif name == b"transfer-encoding" and b"chunked" in value.lower():
                chunked = True
        return length, chunked

    def _stop(self) -> None:
        self.waiting.pop(self, None)
        for deadline in self.deadlines:
            deadline.cancel()
        self.deadlines = []


def bound_socket(host: str, port: str) -> socket.socket:
    """A socket bound to host:port for uvicorn to serve on, or a message saying why not. Bound here,
    before anything says the Space serves: uvicorn binds only once it starts, and where the port is
    taken it logs the error and exits after the start was announced."""
    if not port.isdigit() or int(port) > 65535:
        raise SystemExit(f"GRADIO_SERVER_PORT must be a port number, such as 7860; got {port!r:.40}")
    # As uvicorn's own binding: an IPv6 address holds a colon.
    bound = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    bound.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # no wait for a previous run's TIME_WAIT
    try:
        bound.bind((host, int(port)))
    except OSError as error:
        bound.close()
        if error.errno == errno.EADDRINUSE:
            other = int(port) + 1 if int(port) < 65535 else 7860
            raise SystemExit(f"cannot serve the BLEU Space on {host}:{port}: the port is in use (another server, or "
                             f"the Space already running?); stop that one, or choose another port with "
                             f"GRADIO_SERVER_PORT, such as GRADIO_SERVER_PORT={other} python app.py") from None
        raise SystemExit(f"cannot serve the BLEU Space on {host}:{port}: {error.strerror or error}; choose another "
                         f"address with GRADIO_SERVER_NAME and GRADIO_SERVER_PORT") from None
    bound.set_inheritable(True)
    return bound


def serve(page: Callable[[], "gr.Blocks"]) -> None:
    """Serve the Space on GRADIO_SERVER_NAME:GRADIO_SERVER_PORT until Ctrl-C or SIGTERM, with the
    settings above (Gradio's launch() gives no say over the connections). ``page`` builds it once
    the address is bound: a taken port is a message at once, not after Gradio's seconds of import."""
    host, port = os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"), os.environ.get("GRADIO_SERVER_PORT", "7860")
    bound = bound_socket(host, port)  # before the workers start: a taken port ends here, with nothing to stop
    try:
        _serve_on(bound, host, page())
    finally:
        bound.close()


def _serve_on(bound: socket.socket, host: str, demo: "gr.Blocks") -> None:
    """The page served on a bound socket, with its worker processes, until the server stops."""
    import gradio as gr

    from .page import workers

    # Gradio sums up its last 10,000 events with pandas after every event, for its monitoring page:
    # 3 ms of the server's GIL a request. Every 1,000 events is enough.
    os.environ.setdefault("GRADIO_ANALYTICS_CACHE_FREQUENCY", "1000")
    demo.queue(default_concurrency_limit=8, max_size=QUEUE_SIZE)
    # show_error=False: an unexpected error says "Error", never its text, which may hold a path.
    app = gr.mount_gradio_app(FastAPI(middleware=[Middleware(RequestSizeLimit, limit=MAX_REQUEST_BYTES)]), demo,
                              path="/", max_file_size=MAX_BYTES, show_error=False)
    config = uvicorn.Config(app, host=host, port=bound.getsockname()[1], http=RequestDeadlines,
                            timeout_keep_alive=HEADER_SECONDS, h11_max_incomplete_event_size=MAX_HEAD_BYTES,
                            limit_concurrency=MAX_CONNECTIONS, log_level="warning")
    workers.start()  # from this thread, which serves to the end
    print(f"Serving the BLEU Space on http://{host}:{bound.getsockname()[1]}", flush=True)
    try:
        uvicorn.Server(config).run(sockets=[bound])
    finally:
        workers.close()
