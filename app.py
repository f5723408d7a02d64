"""The BLEU Space: score predictions against references in the browser, or through the API.

    python app.py    # serves on GRADIO_SERVER_NAME:GRADIO_SERVER_PORT (default 127.0.0.1:7860)

The page takes one segment per line, up to three reference sets, and the options that decide the
number; it shows the score, the n-gram precisions, per-sentence scores, the signature and the
full result. The same computation is the API endpoint `/compute`, and sacrebleu's paired tests
are `/compare`:

    from gradio_client import Client
    Client(url).predict("the cat sat", "the cat sat on the mat", api_name="/compute")

The Space's code is the package `space/`, beside `exactbleu/`: this file only builds and starts
it. Its worker processes import this file again when they start, so nothing here runs at import
but `demo`, which is built on first use.
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # only for the type: gradio loads with the page, on first use
    import gradio as gr


def __getattr__(name: str) -> "gr.Blocks":
    """``app.demo``, the page, built when first asked for (as Gradio's tools and the tests ask)."""
    if name == "demo":
        return _page()
    raise AttributeError(f"module 'app' has no attribute {name!r}")


def _page() -> "gr.Blocks":
    """The page, built on first use (gradio loads with it)."""
    from space.page import demo

    return demo


if __name__ == "__main__":
    from space.server import serve

    serve(_page)
