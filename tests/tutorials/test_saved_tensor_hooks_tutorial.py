"""The saved-tensors-hooks page: a saved tensor sent to disk through
``grad_fn._raw_saved_self.register_hooks``, hooks inside a module's forward, and that module
wrapped in ``nn.DataParallel``."""

import os

import pytest

import minitorch as torch
from minitorch import nn

pytestmark = [pytest.mark.tutorials, pytest.mark.chapter5]


@pytest.fixture
def disk(tmp_path):
    count = [0]

    def pack(t):
        count[0] += 1
        path = os.path.join(tmp_path, f"t{count[0]}.pt")
        torch.save(t, path)
        return path

    return pack, torch.load, count, tmp_path


def test_one_saved_tensor_goes_to_disk(disk):
    pack, unpack, count, folder = disk
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = x.pow(3)
    y.grad_fn._raw_saved_self.register_hooks(pack, unpack)
    assert sorted(os.listdir(folder)) == ["t1.pt"]
    assert y.grad_fn._saved_self.tolist() == [0.5, -1.0, 2.0]
    y.sum().backward()
    assert x.grad.tolist() == [0.75, 3.0, 12.0]
    with pytest.raises(RuntimeError, match="Calling register_hooks on a saved tensor after it "
                                           "has been freed"):
        y.grad_fn._raw_saved_self.register_hooks(pack, unpack)


def test_hooks_in_a_forward_wrapped_in_data_parallel(disk):
    pack, unpack, count, _ = disk

    class Cube(nn.Module):
        def forward(self, v):
            with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
                return (v * v * v).sum()

    net = nn.DataParallel(Cube())
    assert repr(net) == "DataParallel(\n  (module): Cube()\n)"
    v = torch.tensor([1.0, 2.0], requires_grad=True)
    net(v).backward()
    assert v.grad.tolist() == [3.0, 12.0]
    assert count[0] == 4 and net.device_ids == []        # as in PyTorch: two muls, two each
    assert list(nn.DataParallel(nn.Linear(2, 1)).state_dict()) == ["module.weight",
                                                                    "module.bias"]
