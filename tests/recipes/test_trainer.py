"""The README's two `compute_metrics` recipes for `Seq2SeqTrainer`, in a real trainer: a tiny T5 with a
tokenizer trained here (nothing is downloaded) learns a toy German->English word list for a few seconds, so
that it translates partly, and is evaluated with the one-shot recipe, with `batch_eval_metrics=True` and
the batched recipe, and with the batched recipe one-shot."""

import random

import numpy as np
import pytest

from oracles import hf_bleu
from pages import run_python
from test_recipes import StubTokenizer

pytestmark = pytest.mark.slow  # real trainers

GERMAN_TO_ENGLISH = {
    "der": "the", "ein": "a", "und": "and", "Haus": "house", "Katze": "cat", "Hund": "dog",
    "Baum": "tree", "rot": "red", "groß": "big", "klein": "small", "sieht": "sees", "hat": "has",
}


def word_lists(count, rng):
    """(German, English) pairs of 3 to 7 words, translated word for word."""
    pairs = []
    for _ in range(count):
        words = [rng.choice(list(GERMAN_TO_ENGLISH)) for _ in range(rng.randint(3, 7))]
        pairs.append((" ".join(words), " ".join(GERMAN_TO_ENGLISH[word] for word in words)))
    return pairs


def test_batched_recipe_sums_its_batches_and_starts_afresh():
    compute_metrics = run_python("seq2seq")["compute_metrics"]
    batched = run_python("seq2seq-batched")["BatchedBleu"](StubTokenizer())
    predictions = np.array([[1, 2, 3, 4, 1, 5], [6, 7, 8, 0, 0, 0], [1, 7, 8, 4, 1, 5]])
    labels = np.array([[1, 2, 3, 4, 6, 5], [6, 7, 8, -100, -100, -100], [1, 7, 3, 4, 1, 5]])
    expected = hf_bleu(["the cat sat on the mat", "a dog ran", "the dog ran on the mat"],
                       [["the cat sat on a mat"], ["a dog ran"], ["the dog sat on the mat"]])
    expected = {"bleu": expected["bleu"], "brevity_penalty": expected["brevity_penalty"]}
    assert 0 < expected["bleu"] < 1
    assert compute_metrics((predictions, labels), StubTokenizer()) == expected
    # Two evaluations in a row, of different corpora: a total left over from the first would change the
    # second (the same corpus twice would not show it: doubled statistics score the same).
    for rows in ([0, 1, 2], [2, 0]):
        corpus = predictions[rows], labels[rows]
        assert batched((corpus[0][:1], corpus[1][:1]), compute_result=False) == {}
        assert batched((corpus[0][1:], corpus[1][1:]), compute_result=True) == compute_metrics(corpus, StubTokenizer())
    assert compute_metrics(corpus, StubTokenizer()) != expected
    assert batched((predictions, labels)) == expected


def test_seq2seq_trainer_batch_eval_metrics_equals_one_shot(tmp_path, one_torch_thread):
    pytest.importorskip("transformers")  # torch: one_torch_thread
    import datasets
    from tokenizers import Tokenizer, models, pre_tokenizers, processors, trainers
    from transformers import (DataCollatorForSeq2Seq, PreTrainedTokenizerFast, Seq2SeqTrainer,
                              Seq2SeqTrainingArguments, T5Config, T5ForConditionalGeneration, set_seed)

    rng = random.Random(0)
    train_pairs, eval_pairs = word_lists(512, rng), word_lists(64, rng)

    word_level = Tokenizer(models.WordLevel(unk_token="<unk>"))
    word_level.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    word_level.train_from_iterator([text for pair in train_pairs for text in pair],
                                   trainers.WordLevelTrainer(special_tokens=["<pad>", "</s>", "<unk>"]))
    word_level.post_processor = processors.TemplateProcessing(single="$A </s>", special_tokens=[("</s>", 1)])
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=word_level, pad_token="<pad>", eos_token="</s>",
                                        unk_token="<unk>")

    def dataset(pairs):
        sources = tokenizer([german for german, _ in pairs])
        targets = tokenizer(text_target=[english for _, english in pairs])
        return datasets.Dataset.from_dict({"input_ids": sources["input_ids"], "labels": targets["input_ids"],
                                           "attention_mask": sources["attention_mask"]})

    set_seed(0)
    model = T5ForConditionalGeneration(T5Config(d_model=32, d_ff=64, d_kv=16, num_layers=1, num_heads=2,
                                                vocab_size=len(tokenizer), pad_token_id=tokenizer.pad_token_id,
                                                eos_token_id=tokenizer.eos_token_id,
                                                decoder_start_token_id=tokenizer.pad_token_id))
    collator = DataCollatorForSeq2Seq(tokenizer, model=model)

    def arguments(**overrides):
        # 300 steps at a constant 1e-2 give a BLEU near 0.6 with a brevity penalty below 1 here; 200 to 350
        # steps all land well inside (0, 1).
        return Seq2SeqTrainingArguments(
            output_dir=str(tmp_path), report_to=[], use_cpu=True, seed=0, disable_tqdm=True, save_strategy="no",
            logging_strategy="no", per_device_train_batch_size=64, learning_rate=1e-2, lr_scheduler_type="constant",
            max_steps=300, per_device_eval_batch_size=8, predict_with_generate=True, generation_max_length=12,
            **overrides)

    Seq2SeqTrainer(model=model, args=arguments(), train_dataset=dataset(train_pairs), data_collator=collator,
                   processing_class=tokenizer).train()
    eval_set = dataset(eval_pairs)

    def evaluate(compute_metrics, examples, batch_eval_metrics):
        trainer = Seq2SeqTrainer(model=model, args=arguments(batch_eval_metrics=batch_eval_metrics),
                                 eval_dataset=examples, data_collator=collator, processing_class=tokenizer,
                                 compute_metrics=compute_metrics)
        metrics = trainer.evaluate()
        # Timings differ from run to run (eval_model_preparation_time too); all else must not.
        return {key: value for key, value in metrics.items() if not key.endswith(("_time", "_runtime", "_per_second"))}

    one_shot_recipe = run_python("seq2seq")["compute_metrics"]
    batched_bleu = run_python("seq2seq-batched")["BatchedBleu"](tokenizer)
    seen, calls = [], []

    def one_shot(eval_preds):
        seen.append(eval_preds.predictions)
        return one_shot_recipe(eval_preds, tokenizer)

    def batched(eval_preds, compute_result):
        calls.append(compute_result)
        return batched_bleu(eval_preds, compute_result=compute_result)

    one_shot_metrics = evaluate(one_shot, eval_set, batch_eval_metrics=False)
    batched_metrics = evaluate(batched, eval_set, batch_eval_metrics=True)

    assert calls == [False] * 7 + [True]
    assert {"eval_bleu", "eval_brevity_penalty"} <= set(one_shot_metrics)
    assert batched_metrics == one_shot_metrics
    # Without batch_eval_metrics the same object scores a whole set at once. On another set, since a total
    # left over from the run above would not show on the same one (doubled statistics score the same).
    subset = eval_set.select(range(20))
    subset_metrics = evaluate(lambda eval_preds: one_shot_recipe(eval_preds, tokenizer), subset,
                              batch_eval_metrics=False)
    assert subset_metrics["eval_bleu"] != one_shot_metrics["eval_bleu"]
    assert evaluate(batched_bleu, subset, batch_eval_metrics=False) == subset_metrics

    # The oracle: HF's algorithm on the generated tokens, decoded apart from the recipes, against the
    # English word lists themselves rather than the decoded labels.
    (generated,) = seen
    special = set(tokenizer.all_special_ids) | {-100}
    predictions = [" ".join(tokenizer.convert_ids_to_tokens([int(i) for i in row if int(i) not in special]))
                   for row in generated]
    expected = hf_bleu(predictions, [[english] for _, english in eval_pairs])
    assert 0 < expected["bleu"] < 1
    assert one_shot_metrics["eval_bleu"] == expected["bleu"]
    assert one_shot_metrics["eval_brevity_penalty"] == expected["brevity_penalty"]
