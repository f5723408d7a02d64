import os

from lighteval.tasks.lighteval_task import LightevalTaskConfig
from lighteval.tasks.requests import Doc

from exactbleu.lighteval import corpus_bleu_metric, sentence_bleu_metric


def prompt(line, task_name=None):
    """A line of data.jsonl: its source is the prompt, and each of its references a gold."""
    references = line["references"]
    return Doc(task_name=task_name, query=line["source"], choices=references,
               gold_index=list(range(len(references))))


TASKS_TABLE = [
    LightevalTaskConfig(
        name="exactbleu_translation",
        prompt_function=prompt,
        hf_repo=os.getcwd(),  # the folder of data.jsonl, which datasets reads as a local dataset
        hf_subset="default",
        hf_avail_splits=["train"],
        evaluation_splits=["train"],
        few_shots_split=None,
        few_shots_select=None,
        generation_size=256,
        stop_sequence=["\n"],
        # sacrebleu's BLEU over every reference, the tokenizer chosen by the target language as
        # sacrebleu chooses it. Any preset and option of exactbleu can be named here.
        metrics=[corpus_bleu_metric(target_language="de"), sentence_bleu_metric(target_language="de")],
    )
]
