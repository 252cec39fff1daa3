"""The GPT of ``minitorch/book/gpt.py`` compiled (chapters 19-21): every backend gives PyTorch's
loss, gradients and training losses (the fixture of ``tests/nn/test_gpt_program.py``,
recorded from PyTorch 2.13), in one graph, with no graph break."""

import numpy as np
import pytest

import minitorch

from ..nn.test_gpt_program import CONFIG, close, load_program_on_minitorch, \
    model_with_fixed_weights

pytestmark = [pytest.mark.chapter19, pytest.mark.chapter21]


@pytest.fixture(scope="module")
def program():
    return load_program_on_minitorch()


@pytest.fixture(scope="module")
def expected():
    import pathlib
    with np.load(pathlib.Path(__file__).parents[1] / "nn" / "data" / "gpt_pytorch.npz") as d:
        return dict(d)


@pytest.mark.parametrize("backend", ["eager", "aot_eager", "inductor"])
@pytest.mark.parametrize("fused", [True, False], ids=["sdpa", "written-out"])
def test_compiled_training_matches_pytorch(program, expected, backend, fused):
    tag = "fused" if fused else "written"
    model = model_with_fixed_weights(program, expected, fused)
    compiled = minitorch.compile(model, backend=backend)
    x, y = minitorch.tensor(expected["idx"]), minitorch.tensor(expected["targets"])
    logits, loss = compiled(x, y)
    close(logits.detach().numpy(), expected[f"{tag}/logits"])
    close(loss.item(), expected[f"{tag}/loss"])
    loss.backward()
    for name, p in model.named_parameters():
        close(p.grad.numpy(), expected[f"{tag}/grad/{name}"], rtol=1e-4, atol=1e-6)
    model.zero_grad()
    optimizer = model.configure_optimizers(0.1, 1e-2)
    losses = [program.train_step(compiled, optimizer, x, y, max_norm=0.5) for _ in range(4)]
    close(losses, expected[f"{tag}/step_losses"], rtol=1e-4)
    entries = compiled._compiled.entries
    assert len(entries) == 1 and entries[0].breaks == [] and entries[0].misses == 0
    assert len(entries[0].segments) == 1
    assert CONFIG["n_layer"] == 2
