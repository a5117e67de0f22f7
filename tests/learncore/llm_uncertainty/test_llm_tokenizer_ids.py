"""Token ids out of the vocabulary are ValueErrors naming the argument (issue 29: decode([1, -1]) wrapped
to the last character silently, and the model raised IndexError from its embedding)."""
import pytest

from helpers import require_torch

require_torch()

import numpy as np  # noqa: E402
import torch  # noqa: E402
from learncore.llm_uncertainty import CharTokenizer, load_arith_model  # noqa: E402


@pytest.mark.parametrize("ids, exc, match", [
    ([1, -1], ValueError, r"ids holds the token id -1 at position 1, outside"),
    ([1, 13], ValueError, r"ids holds the token id 13 at position 1"),
    ([1, 2.0], TypeError, r"ids must be integer token ids; position 1"),
    ([True], TypeError, r"ids must be integer token ids"),
])
def test_decode_refuses_ids_outside_the_vocabulary(ids, exc, match):
    with pytest.raises(exc, match=match):
        CharTokenizer().decode(ids)


def test_decode_takes_numpy_and_torch_integers():
    tok = CharTokenizer()
    assert tok.decode([np.int64(4), torch.tensor(2), 12]) == "42"
    assert tok.decode([4, 12], skip_special_tokens=False) == "4<eos>"


@pytest.mark.parametrize("ids, exc, match", [
    (torch.tensor([[1, 2, 99]]), ValueError, r"input_ids holds the token id 99, outside the vocabulary 0\.\.12"),
    (torch.tensor([[1, -2]]), ValueError, r"input_ids holds the token id -2"),
    (torch.tensor([[1.0, 2.0]]), TypeError, r"input_ids must be a tensor of integer token ids"),
])
def test_model_refuses_ids_outside_the_vocabulary(ids, exc, match):
    with pytest.raises(exc, match=match):
        load_arith_model()(ids)
