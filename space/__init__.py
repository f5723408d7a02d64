"""The BLEU Space: exactbleu in the browser and behind a Gradio API, safe to leave open.

The modules follow a request, one way:

- ``page``: the page's layout and events, and the API endpoints;
- ``requests``: one dataclass for the page's inputs, checked once, and the job each request is;
- ``pricing``: what a job may cost, known before any of its work runs, from the prices the
  tokenizers declare (``exactbleu.TOKENIZERS``);
- ``workers``: where the work runs, in worker processes, by price;
- ``server``: the server's settings, which bound request sizes and slow clients.

Each calls only the one after it and exactbleu's public API. ``app.py`` builds and starts it.
"""
