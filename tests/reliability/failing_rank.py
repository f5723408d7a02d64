"""One rank of a distributed compute that fails, for test_misuse: rank 1 runs this file as a
script, in a process of its own; rank 0 is the test's own process, which has evaluate loaded
already (a second child would import it again, 4 s of CPU)."""

import glob
import json
import pathlib
import sys


def failing_rank(path, rank, cache, predictions, references):
    """Add this rank's share, compute with more characters than max_tokens (refused on rank 0,
    after gathering), then compute again: [the error or "no error", rank 0's result, the cache's
    .arrow files left]."""
    import evaluate

    metric = evaluate.load(path, num_process=2, process_id=rank, experiment_id="failing", cache_dir=cache,
                           max_tokens=100_000)
    metric.add_batch(predictions=predictions[rank::2], references=references[rank::2])
    try:
        metric.compute(tokenizer="char")
        outcome = "no error"
    except ValueError as error:
        outcome = str(error)
    result = metric.compute() if rank == 0 else None
    return [outcome, result, glob.glob(cache + "/**/*.arrow", recursive=True)]


if __name__ == "__main__":
    path, rank, cache = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    data = json.loads(pathlib.Path(sys.argv[4]).read_text())
    print(json.dumps(failing_rank(path, rank, cache, data["predictions"], data["references"])))
