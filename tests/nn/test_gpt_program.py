"""The GPT of ``minitorch/book/gpt.py`` (chapter 17's model, written for PyTorch) runs
on minitorch and gives PyTorch's logits, loss, gradients, training losses and greedy text
for the same weights.

Expected values: ``data/gpt_pytorch.npz``, recorded from PyTorch 2.13 by
``scripts/make_gpt_fixture.py`` (run by hand; torch is never needed to test).
"""

import pathlib

import numpy as np
import pytest

import minitorch

from ..torch_as import import_on_minitorch

pytestmark = pytest.mark.chapter17

HERE = pathlib.Path(__file__).parent
PROGRAM = HERE.parents[1] / "minitorch" / "book" / "gpt.py"
CONFIG = dict(vocab_size=11, block_size=8, n_layer=2, n_head=2, n_embd=16)


def load_program_on_minitorch():
    """Import ``minitorch/book/gpt.py`` with ``minitorch`` answering its ``import torch``."""
    return import_on_minitorch(PROGRAM, "gpt_program_on_minitorch")


@pytest.fixture(scope="module")
def program():
    return load_program_on_minitorch()


@pytest.fixture(scope="module")
def expected():
    with np.load(HERE / "data" / "gpt_pytorch.npz") as data:
        return dict(data)


def model_with_fixed_weights(program, expected, fused):
    model = program.GPT(program.GPTConfig(**CONFIG, fused_attention=fused))
    state = {k[len("param/"):]: minitorch.tensor(v) for k, v in expected.items()
             if k.startswith("param/")}
    model.load_state_dict(state)
    return model


def close(actual, wanted, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(np.asarray(actual), wanted, rtol=rtol, atol=atol)


def test_the_program_really_uses_minitorch(program):
    assert program.torch is minitorch
    assert program.F is minitorch.nn.functional


@pytest.mark.parametrize("fused", [True, False], ids=["sdpa", "written-out"])
def test_logits_loss_and_gradients_match_pytorch(program, expected, fused):
    tag = "fused" if fused else "written"
    model = model_with_fixed_weights(program, expected, fused)
    assert model.tok_emb.weight is model.head.weight
    logits, loss = model(minitorch.tensor(expected["idx"]), minitorch.tensor(expected["targets"]))
    close(logits.detach().numpy(), expected[f"{tag}/logits"])
    close(loss.item(), expected[f"{tag}/loss"])
    loss.backward()
    names = [name for name, _ in model.named_parameters()]
    assert names == [k[len(f"{tag}/grad/"):] for k in expected if k.startswith(f"{tag}/grad/")]
    for name, p in model.named_parameters():
        close(p.grad.numpy(), expected[f"{tag}/grad/{name}"], rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("fused", [True, False], ids=["sdpa", "written-out"])
def test_adamw_steps_with_clipping_match_pytorch(program, expected, fused):
    tag = "fused" if fused else "written"
    model = model_with_fixed_weights(program, expected, fused)
    optimizer = model.configure_optimizers(0.1, 1e-2)
    assert [g["weight_decay"] for g in optimizer.param_groups] == [0.1, 0.0]
    x, y = minitorch.tensor(expected["idx"]), minitorch.tensor(expected["targets"])
    losses = [program.train_step(model, optimizer, x, y, max_norm=0.5) for _ in range(4)]
    close(losses, expected[f"{tag}/step_losses"], rtol=1e-4)
    model.eval()
    greedy = model.generate(x[:2, :3], 6, top_k=1)
    assert greedy.tolist() == expected[f"{tag}/greedy"].tolist()


def test_generate_with_temperature_and_top_k_gives_valid_tokens(program, expected):
    model = model_with_fixed_weights(program, expected, True)
    model.eval()
    start = minitorch.tensor(expected["idx"][:2, :3])
    out = model.generate(start, 12, temperature=0.8, top_k=3,
                         generator=minitorch.Generator().manual_seed(1))
    assert out.shape == (2, 15) and out.dtype == minitorch.int64
    assert out[:, :3].tolist() == start.tolist()
    tokens = out.numpy()
    assert ((0 <= tokens) & (tokens < CONFIG["vocab_size"])).all()
    for t in range(3, 15):                  # each new token is among the 3 likeliest
        context = out[:, max(0, t - CONFIG["block_size"]):t]
        with minitorch.no_grad():
            logits, _ = model(context)
        top3 = logits[:, -1].topk(3).indices.numpy()
        assert all(tokens[row, t] in top3[row] for row in range(2))
