"""Training an MLP 64-128-10 on scikit-learn's bundled 8x8 digits for 20 epochs.

Every implementation starts from the same weights and sees the same batches
in the same order, so they follow the same trajectory up to float rounding
and reach the same accuracy.  Timed: building the model and the 20 epochs of
training, then the test-set prediction.
"""

import numpy as np

from ..harness import interleaved, summarize
from . import all_met, ratio_met, record
from .mlp_step import init_weights

NAME = "digits"
TITLE = "MLP 64-128-10 on the bundled 8x8 digits, 20 epochs"
UNIT = "s"
TARGET = {"reference": "torch", "max_ratio": 1.0, "text": "at most PyTorch's time, same accuracy"}
SIZES = (64, 128, 10)
EPOCHS = 20
BATCH = 32
LR = 0.1
N_TEST = 360
REPS = {False: 2, True: 1}     # calls per round, full run and --quick
SAME_ACCURACY = 0.01     # accuracies within one percentage point count as the same


def load(seed=0):
    """The digits scaled to [0, 1] as float32, split once with a fixed seed (1,437 train, 360 test)."""
    from sklearn.datasets import load_digits     # bundled with scikit-learn: nothing is downloaded
    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32)
    y = digits.target.astype(np.int64)
    order = np.random.default_rng(seed).permutation(len(x))
    test, train = order[:N_TEST], order[N_TEST:]
    return x[train], y[train], x[test], y[test]


def batches(x, y, epochs, batch, seed=1):
    """The same shuffled mini-batches, epoch after epoch, for everyone."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(epochs):
        order = rng.permutation(len(x))
        out += [(x[order[i:i + batch]], y[order[i:i + batch]]) for i in range(0, len(x), batch)]
    return out


def trainer(impl, weights, data, epochs):
    """Set-up (not timed) for one implementation; the returned ``run()`` trains and returns the accuracy."""
    x_train, y_train, x_test, y_test = data
    native = [impl.batch(xb, yb) for xb, yb in batches(x_train, y_train, epochs, BATCH)]
    test_x = impl.batch(x_test, y_test)[0]

    def run():
        net = impl.Net(weights, LR)
        for xb, yb in native:
            net.step(xb, yb)
        return float((net.predict(test_x) == y_test).mean())
    return run


def run(impls, rounds, quick, log=None):
    data = load()
    weights = init_weights(SIZES, np.random.default_rng(0))
    trainers = {name: trainer(impl, weights, data, EPOCHS) for name, impl in impls.items()}
    accuracy = {name: train() for name, train in trainers.items()}
    times = interleaved(trainers, rounds, reps=REPS[quick], log=log)
    summary, ratios = summarize(times, TARGET["reference"])
    for name in summary:
        summary[name]["accuracy"] = accuracy[name]
    reference = "torch" if "torch" in accuracy else "numpy"
    same = (abs(accuracy["minitorch"] - accuracy[reference]) <= SAME_ACCURACY) if "minitorch" in accuracy else None
    params = {"sizes": list(SIZES), "epochs": EPOCHS, "batch": BATCH, "lr": LR,
              "train": len(data[0]), "test": len(data[2]), "reps_per_round": REPS[quick]}
    return record(params, summary, ratios, all_met(ratio_met(ratios, TARGET), same),
                  same_accuracy=same, same_accuracy_within=SAME_ACCURACY)
