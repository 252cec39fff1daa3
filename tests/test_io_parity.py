"""save/load as PyTorch 2.13 behaves where minitorch's safe format applies (chapter 10):
tensors that shared memory share it again after loading; sizes and dtypes round-trip;
``map_location`` takes a device."""

import io

import pytest

import minitorch as torch

pytestmark = pytest.mark.chapter10


def roundtrip(obj, **load_options):
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    return torch.load(buf, **load_options)


def test_views_saved_together_share_memory_after_loading():
    x = torch.arange(6.0)
    d = roundtrip({"a": x, "b": x[2:]})
    d["b"][0] = 100
    assert d["a"].tolist() == [0.0, 1.0, 100.0, 3.0, 4.0, 5.0]


def test_size_and_dtype_round_trip():
    assert roundtrip(torch.Size([2, 3])) == torch.Size([2, 3])
    assert type(roundtrip(torch.Size([2, 3]))).__name__ == "Size"
    assert roundtrip(torch.float64) is torch.float64


def test_map_location_takes_a_device():
    d = roundtrip({"x": torch.ones(2)}, map_location=torch.device("cpu"))
    assert d["x"].tolist() == [1.0, 1.0]


def test_copy_of_a_tensor():
    import copy
    x = torch.ones(2)
    y = copy.copy(x)
    assert y.tolist() == [1.0, 1.0]
