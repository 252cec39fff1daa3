"""Record PyTorch's outputs for the GPT of ``minitorch/book/gpt.py`` (run by hand, needs
torch): ``python scripts/make_gpt_fixture.py`` writes ``tests/nn/data/gpt_pytorch.npz``.

The weights are fixed arrays (not PyTorch's random init), so minitorch can load the
same ones: the test then compares logits, loss, every gradient, the losses of a few
AdamW steps with gradient clipping, and greedy generation (top_k=1).
"""

import importlib.util
import pathlib

import numpy as np
import torch

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "nn" / "data" / "gpt_pytorch.npz"
CONFIG = dict(vocab_size=11, block_size=8, n_layer=2, n_head=2, n_embd=16)


def load_program():
    program = ROOT / "minitorch" / "book" / "gpt.py"
    spec = importlib.util.spec_from_file_location("gpt_program", program)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fixed_weights(model):
    """Deterministic weights of a realistic size: sines, scaled like the usual init."""
    state = {}
    for i, (name, value) in enumerate(model.state_dict().items()):
        n = value.numel()
        wave = np.sin(np.arange(n, dtype=np.float64) * (0.61 + 0.013 * i) + i)
        scale = 1.0 if name.endswith("ln1.weight") or name.endswith("ln2.weight") \
            or name.endswith("ln_f.weight") else 0.2
        base = 1.0 if scale == 1.0 else 0.0
        state[name] = (base + scale * wave).reshape(tuple(value.shape)).astype(np.float32)
    state["head.weight"] = state["tok_emb.weight"]      # tied: one table
    return state


def main():
    torch.set_num_threads(1)
    program = load_program()
    out = {}
    rng = np.random.RandomState(0)
    idx = rng.randint(0, CONFIG["vocab_size"], size=(3, CONFIG["block_size"]))
    targets = rng.randint(0, CONFIG["vocab_size"], size=(3, CONFIG["block_size"]))
    targets[0, :2] = -1                                  # ignored positions
    out["idx"], out["targets"] = idx, targets
    for fused in (True, False):
        config = program.GPTConfig(**CONFIG, fused_attention=fused)
        torch.manual_seed(0)
        model = program.GPT(config)
        state = fixed_weights(model)
        if fused:
            for name, value in state.items():
                out["param/" + name] = value
        model.load_state_dict({k: torch.tensor(v) for k, v in state.items()})
        logits, loss = model(torch.tensor(idx), torch.tensor(targets))
        loss.backward()
        tag = "fused" if fused else "written"
        out[f"{tag}/logits"] = logits.detach().numpy()
        out[f"{tag}/loss"] = loss.detach().numpy()
        for name, p in model.named_parameters():
            out[f"{tag}/grad/{name}"] = p.grad.numpy()
        optimizer = model.configure_optimizers(0.1, 1e-2)
        losses = [program.train_step(model, optimizer, torch.tensor(idx), torch.tensor(targets),
                                     max_norm=0.5) for _ in range(4)]
        out[f"{tag}/step_losses"] = np.array(losses)
        model.eval()
        out[f"{tag}/greedy"] = model.generate(torch.tensor(idx[:2, :3]), 6, top_k=1).numpy()
    np.savez_compressed(OUT, **out)
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
