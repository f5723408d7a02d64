"""The MBR recipe of docs/mbr.md with transformers' generate: a tiny, randomly initialised T5 samples
candidates for each source, and the recipe's picks are the candidates a loop of sentence_bleu ranks
first; the token-id variant picks what mbr picks on the same ids as lists."""

import random

import pytest

import exactbleu
from pages import recipe

pytestmark = pytest.mark.slow  # a model's generate

WORDS = "the a cat dog sat ran on in mat home big small red".split()


def test_the_generate_recipe_picks_the_candidates_sentence_bleu_ranks_first(monkeypatch, one_torch_thread):
    pytest.importorskip("transformers")
    from tokenizers import Tokenizer, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast, T5Config, T5ForConditionalGeneration, set_seed

    rng = random.Random(0)
    lines = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 6))) for _ in range(100)]
    word_level = Tokenizer(models.WordLevel(unk_token="<unk>"))
    word_level.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    word_level.train_from_iterator(lines, trainers.WordLevelTrainer(special_tokens=["<pad>", "</s>", "<unk>"]))
    word_level.post_processor = processors.TemplateProcessing(single="$A </s>", special_tokens=[("</s>", 1)])
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=word_level, pad_token="<pad>", eos_token="</s>",
                                        unk_token="<unk>")
    set_seed(0)
    model = T5ForConditionalGeneration(T5Config(d_model=32, d_ff=64, d_kv=16, num_layers=1, num_heads=2,
                                                vocab_size=len(tokenizer), pad_token_id=tokenizer.pad_token_id,
                                                eos_token_id=tokenizer.eos_token_id,
                                                decoder_start_token_id=tokenizer.pad_token_id))
    namespace = {}
    exec(recipe("mbr-generate"), namespace)
    calls = []
    real = exactbleu.mbr

    def recorded(candidates, *args, **kwargs):
        result = real(candidates, *args, **kwargs)
        calls.append((candidates, kwargs, result))
        return result

    monkeypatch.setattr(exactbleu, "mbr", recorded)
    sources = lines[:5]
    picks = namespace["mbr_translate"](model, tokenizer, sources, samples=6, max_new_tokens=8)
    (candidates, _, _), = calls
    assert len(candidates) == 5 and all(len(group) == 6 for group in candidates)
    assert len({text for group in candidates for text in group}) > 5  # sampled, not one text
    for group, pick in zip(candidates, picks):
        utilities = [sum(exactbleu.sentence_bleu(candidate, [other], "sacrebleu")["bleu"] for other in group)
                     for candidate in group]
        ranked = sorted(range(len(group)), key=lambda index: (-utilities[index], index))
        assert pick == group[ranked[0]]

    decoded = namespace["mbr_translate_ids"](model, tokenizer, sources, samples=6, max_new_tokens=8)
    ids, kwargs, result = calls[1]
    special = set(kwargs["ignore_ids"])
    as_lists = [[[token for token in row if token not in special] for row in group] for group in ids.tolist()]
    assert result.best.tolist() == real(as_lists).best.tolist()
    assert decoded == tokenizer.batch_decode(ids[range(5), result.best], skip_special_tokens=True)
