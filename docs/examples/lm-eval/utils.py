from exactbleu.lm_eval import TaskMetric

# sacrebleu's BLEU over every reference, the tokenizer chosen by the target language as sacrebleu
# chooses it (zh, ja and ko have their own). Any preset and option of exactbleu can be named here.
metric = TaskMetric(references="references", target_language="de")
process_results = metric.process_results
bleu = metric.bleu
bleu_standard_error = metric.bleu_standard_error
