"""The one reader of a queued page event's stream, as a browser reads it. A module of its own,
importing nothing but httpx, so that a client process that uses it (test_space_limits's client that
leaves) starts in about a second, against 3-4 s with space_helpers' imports (pytest, the library)."""

import json


def event_messages(url, body):
    """Each message of a queued event's session stream (``body`` from space_helpers'
    ``queued_event``), as it comes, with the stream open while the caller handles it."""
    import httpx

    with httpx.Client(timeout=120) as http:
        http.post(url + "gradio_api/queue/join", json=body).raise_for_status()
        with http.stream("GET", url + "gradio_api/queue/data", params={"session_hash": body["session_hash"]}) as stream:
            for line in stream.iter_lines():
                if line.startswith("data:"):
                    yield json.loads(line[5:])
