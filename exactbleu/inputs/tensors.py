"""What a tensor input is, told apart without torch: a torch tensor, or a list of them. A tensor's
module has imported torch already, so nothing here imports it; ``device`` checks and counts
tensors once the dispatch sends them there."""

import sys


def is_tensor(value: object) -> bool:
    """Whether a value is a torch tensor."""
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(value, torch.Tensor)


def holds_tensors(value: object) -> bool:
    """Whether texts are given as tensors: one, or a list (or tuple) of them."""
    return is_tensor(value) or (isinstance(value, (list, tuple)) and bool(value) and is_tensor(value[0]))
