"""Starting the Space: what `python app.py` says where it cannot serve, on a port already taken (where
Gradio is missing, tests/package/test_missing_extras.py)."""

import os
import socket
import subprocess
import sys

import pytest

from conftest import ROOT


@pytest.mark.slow  # app.py imports Gradio, 6-7 s
def test_a_taken_port_is_a_message_that_names_it_and_never_claims_to_serve():
    """A second Space on the same port printed "Serving ... on http://127.0.0.1:7860" before
    uvicorn's bind error: it must not claim what it does not do, and must say how to choose another."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        completed = subprocess.run([sys.executable, str(ROOT / "app.py")], cwd=ROOT, capture_output=True, text=True,
                                   timeout=120, env=dict(os.environ, GRADIO_SERVER_NAME="127.0.0.1",
                                                         GRADIO_SERVER_PORT=str(port)))
    output = completed.stdout + completed.stderr
    assert completed.returncode != 0
    assert "Serving" not in output and "http://" not in output
    assert f"127.0.0.1:{port}" in output and "in use" in output and "GRADIO_SERVER_PORT" in output, output
    assert "Traceback" not in output, output
