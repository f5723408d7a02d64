"""sacrebleu's SentencePiece tokenizers, ``flores101`` and ``flores200`` (spBLEU)."""

import importlib.util
import os
from typing import List, Optional

# sacrebleu's SentencePiece tokenizers (spBLEU): the model file each reads from sacrebleu's folder,
# $SACREBLEU/models (else ~/.sacrebleu/models), and the name its signature gives. sacrebleu
# downloads a missing model; this module never does: ``spm_model=`` names a file instead.
SPM_MODELS = {
    "flores101": ("sacrebleu_tokenizer_spm.model", "flores101"),
    "flores200": ("flores200sacrebleuspm", "flores200"),
    "spm": ("sacrebleu_tokenizer_spm.model", "flores101"),  # sacrebleu's old name for flores101
}
_SPM_PROCESSORS = {}


def spm_model_path(tokenizer: str) -> str:
    """Where sacrebleu keeps the model of a SentencePiece tokenizer (a name in SPM_MODELS)."""
    folder = os.environ.get("SACREBLEU", os.path.join(os.path.expanduser("~"), ".sacrebleu"))
    return os.path.join(folder, "models", SPM_MODELS[tokenizer][0])


def tokenize_spm(line: str, model: str) -> List[str]:
    """sacrebleu's flores101/flores200: the SentencePiece pieces of the line, by the model file."""
    return _processor(model).encode(line, out_type=str)


def _processor(model: str):
    """The SentencePiece processor of a model file, loaded once per process."""
    processor = _SPM_PROCESSORS.get(model)
    if processor is None:
        import sentencepiece

        processor = _SPM_PROCESSORS.setdefault(model, sentencepiece.SentencePieceProcessor(model_file=model))
    return processor


def missing(tokenizer: str) -> str:
    """What a SentencePiece tokenizer needs that is not here: SentencePiece, or its model file in
    sacrebleu's folder; "" when nothing is missing."""
    if importlib.util.find_spec("sentencepiece") is None:
        return "pip install sentencepiece"
    if not os.path.isfile(spm_model_path(tokenizer)):
        return f"the model file {SPM_MODELS[tokenizer][0]} in $SACREBLEU/models (or spm_model=)"
    return ""


def signature_name(tokenizer: str, model: str) -> str:
    """sacrebleu's name, unless the model is another file than sacrebleu's."""
    file, name = SPM_MODELS[tokenizer]
    model = os.path.basename(model)
    return name if model == file else f"{name}[{model}]"


def checked_model_path(tokenizer: str, model: Optional[str]) -> str:
    """The absolute path of a SentencePiece tokenizer's model file, which must exist: nothing is
    downloaded, at load time or at compute time."""
    if importlib.util.find_spec("sentencepiece") is None:
        raise ValueError(f"tokenizer={tokenizer!r} needs SentencePiece, which is not installed here: "
                         f"pip install sentencepiece")
    if model is not None and not isinstance(model, (str, os.PathLike)):
        raise ValueError(f"spm_model must be the path of a SentencePiece model file, got {model!r:.80}")
    path = os.path.abspath(spm_model_path(tokenizer) if model is None else os.fspath(model))
    if not os.path.isfile(path):
        where = f"spm_model={model!r}" if model is not None else "sacrebleu's folder ($SACREBLEU/models, else ~/.sacrebleu/models)"
        raise ValueError(f"tokenizer={tokenizer!r} needs its SentencePiece model, and there is no file {path} "
                         f"({where}): put sacrebleu's {SPM_MODELS[tokenizer][0]} there, or pass spm_model= with "
                         f"its path; this metric downloads nothing")
    try:  # loaded here, where the option is checked, so a bad file fails before any work
        _processor(path)
    except (RuntimeError, OSError) as error:
        raise ValueError(f"spm_model={model!r} is not a SentencePiece model that loads: {error}") from None
    return path
