"""sacrebleu's SentencePiece tokenizers, ``flores101``, ``flores200`` and ``spBLEU-1K`` (spBLEU).

Each reads its model from sacrebleu's folder, ``$SACREBLEU/models`` (else ``~/.sacrebleu/models``),
unless its ``spm_model`` setting names another file. sacrebleu downloads a missing model; this
module never does: a missing file gets a message saying where to put it.
"""

import os
from typing import TYPE_CHECKING, NamedTuple

from ..registry import Option, install_command
from .registry import Needs, Price, Segmenter, Tokenizer, TokenizerSettings

if TYPE_CHECKING:
    import sentencepiece


class Model(NamedTuple):
    """A SentencePiece tokenizer's model file in sacrebleu's folder, and its signature name."""

    file: str
    name: str


SPM_MODELS = {
    "flores101": Model("sacrebleu_tokenizer_spm.model", "flores101"),
    "flores200": Model("flores200sacrebleuspm", "flores200"),
    "spBLEU-1K": Model("spbleu-1k_tokenizer_spm.model", "spBLEU-1K"),
    "spm": Model("sacrebleu_tokenizer_spm.model", "flores101"),  # sacrebleu's old name for flores101
}
_SPM_PROCESSORS: dict[str, "sentencepiece.SentencePieceProcessor"] = {}


def spm_model_path(tokenizer: str) -> str:
    """Where sacrebleu keeps the model of a SentencePiece tokenizer (a name in SPM_MODELS)."""
    folder = os.environ.get("SACREBLEU", os.path.join(os.path.expanduser("~"), ".sacrebleu"))
    return os.path.join(folder, "models", SPM_MODELS[tokenizer].file)


def tokenize_spm(line: str, model: str) -> list[str]:
    """sacrebleu's SentencePiece tokenizers: the pieces of the line, by the model file."""
    pieces: list[str] = _processor(model).encode(line, out_type=str)
    return pieces


def _processor(model: str) -> "sentencepiece.SentencePieceProcessor":
    """The SentencePiece processor of a model file, loaded once per process."""
    processor = _SPM_PROCESSORS.get(model)
    if processor is None:
        import sentencepiece

        processor = _SPM_PROCESSORS.setdefault(model, sentencepiece.SentencePieceProcessor(model_file=model))
    return processor


def model_file_missing(tokenizer: str) -> str:
    """What a SentencePiece tokenizer needs of sacrebleu's folder: its model file, or "" when there."""
    if os.path.isfile(spm_model_path(tokenizer)):
        return ""
    return f"the model file {SPM_MODELS[tokenizer].file} in $SACREBLEU/models (or spm_model=)"


def model_name(tokenizer: str, model: str) -> str:
    """sacrebleu's name, unless the model is another file than sacrebleu's."""
    file, name = SPM_MODELS[tokenizer]
    model = os.path.basename(model)
    return name if model == file else f"{name}[{model}]"


def checked_model_path(model: object, tokenizer: str) -> str:
    """The absolute path of a SentencePiece tokenizer's model file, which must exist: nothing is
    downloaded, at load time or at compute time."""
    if model is not None and not isinstance(model, (str, os.PathLike)):
        raise ValueError(f"spm_model must be the path of a SentencePiece model file, got {model!r:.80}")
    path = os.path.abspath(spm_model_path(tokenizer) if model is None else os.fspath(model))
    if not os.path.isfile(path):
        where = (f"spm_model={model!r}" if model is not None
                 else "sacrebleu's folder ($SACREBLEU/models, else ~/.sacrebleu/models)")
        raise ValueError(f"tokenizer={tokenizer!r} needs its SentencePiece model, and there is no file {path} "
                         f"({where}): put sacrebleu's {SPM_MODELS[tokenizer].file} there, or pass spm_model= with "
                         f"its path; this library downloads nothing")
    try:  # loaded here, where the option is checked, so a bad file fails before any work
        _processor(path)
    except (RuntimeError, OSError) as error:
        raise ValueError(f"spm_model={model!r} is not a SentencePiece model that loads: {error}") from None
    return path


SPM_MODEL = Option(
    "spm_model", "tokenize", None,
    "the model file of a SentencePiece tokenizer: by default the file sacrebleu keeps in `$SACREBLEU/models` (else "
    "`~/.sacrebleu/models`), " + " or ".join(sorted({f"`{model.file}`" for model in SPM_MODELS.values()}))
    + "; nothing is downloaded, and a missing file gets a message saying where to put it",
    ("--spm-model",), {"metavar": "FILE"}, shown_default="sacrebleu's", check=checked_model_path)


def _declared(name: str, describe: str) -> Tokenizer:
    def segmenter(settings: TokenizerSettings) -> Segmenter:
        model = str(settings["spm_model"])
        return lambda line: tokenize_spm(line, model)

    # The Flores models are not on the machine that measures prices: theirs is the dearest of the others'.
    return Tokenizer(name, segmenter, describe, Price(character=8.5e-6, line=64e-6),
                     signature=lambda settings: model_name(name, str(settings["spm_model"])),
                     settings=(SPM_MODEL,), available=lambda: model_file_missing(name),
                     needs=Needs(("sentencepiece",), "`sentencepiece` and its model file", install_command("spm")))


TOKENIZERS = (
    _declared("flores101", "sacrebleu's spBLEU: SentencePiece pieces of the FLORES-101 model"),
    _declared("flores200", "sacrebleu's spBLEU: SentencePiece pieces of the FLORES-200 model"),
    _declared("spBLEU-1K", "sacrebleu 2.6's spBLEU-1K: SentencePiece pieces of the model of 1,000 languages"),
    _declared("spm", "sacrebleu's old name for `flores101`"),
)
