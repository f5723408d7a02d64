"""A model for LightEval's `custom` path that answers each prompt with a fixed generation, so that a
task runs with no model to download: the generation that the JSON file named by the environment
variable FIXED_GENERATIONS gives for the prompt (say, a model's outputs saved before), or with no
such file "lol" to every prompt, as lm-eval's `dummy` model answers."""

import json
import os

from lighteval.models.abstract_model import LightevalModel
from lighteval.models.model_output import ModelResponse
from lighteval.utils.cache_management import SampleCache


class FixedGenerations(LightevalModel):
    """Answers each prompt with its fixed generation."""

    def __init__(self, config):
        self.config = config
        self.generations = None
        if os.environ.get("FIXED_GENERATIONS"):
            with open(os.environ["FIXED_GENERATIONS"], encoding="utf-8") as file:
                self.generations = json.load(file)
        self._cache = SampleCache(config)

    @property
    def tokenizer(self):
        return None

    @property
    def add_special_tokens(self):
        return False

    @property
    def max_length(self):
        return 4096

    def greedy_until(self, docs):
        if self.generations is None:
            return [ModelResponse(text=["lol"]) for _ in docs]
        return [ModelResponse(text=[self.generations[doc.query]]) for doc in docs]

    def loglikelihood(self, docs):
        raise NotImplementedError("a generation task asks for no likelihood")

    def loglikelihood_rolling(self, docs):
        raise NotImplementedError("a generation task asks for no likelihood")
