"""What a tensor input is, told apart without torch: a torch tensor, or a list of them. A tensor's
module has imported torch already, so nothing here imports it; ``device`` checks and counts
tensors once the dispatch sends them there."""

import sys
from collections.abc import Sequence
from typing import Any, cast


def is_tensor(value: object) -> bool:
    """Whether a value is a torch tensor."""
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(value, torch.Tensor)


def holds_tensors(value: object) -> bool:
    """Whether texts are given as tensors: one, or a list (or tuple) of them."""
    return is_tensor(value) or (isinstance(value, (list, tuple)) and bool(value) and is_tensor(value[0]))


def _listed(value: object) -> bool:
    """Whether a value is a non-empty sequence of something, as the device reads references."""
    return isinstance(value, Sequence) and not isinstance(value, (str, bytes)) and bool(len(value))


def holds_tensor_references(value: object) -> bool:
    """Whether references are given as tensors: one, a list of them, or a list of lists of them."""
    if is_tensor(value):
        return True
    if not isinstance(value, Sequence) or not _listed(value):
        return False
    first = value[0]
    return is_tensor(first) or (isinstance(first, Sequence) and _listed(first) and is_tensor(first[0]))


def texts_in(value: object) -> int | None:
    """How many texts tensors hold, as their device reads them: rows of a 2-D tensor, or tensors
    in a list; None where they are neither, which the device's check names."""
    if is_tensor(value):
        tensor = cast(Any, value)  # a nested tensor has no shape to read: the device's check names it
        return int(tensor.size(0)) if tensor.dim() == 2 and not tensor.is_nested else None
    return len(value) if isinstance(value, (list, tuple)) else None


def as_arrays(value: Any) -> Any:
    """Tensors (one, or lists of them, as given) as numpy arrays of the same ids on the host."""
    if is_tensor(value):
        return value.detach().cpu().numpy()
    if isinstance(value, (list, tuple)):
        return [as_arrays(one) for one in value]
    return value
