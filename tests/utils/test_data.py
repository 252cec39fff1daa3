"""minitorch.utils.data against PyTorch 2.13: collate, DataLoader, samplers, datasets, random_split (chapter 10).

Expected batches, dtypes, messages and exception types were printed by
PyTorch 2.13 for the same code.  Random orders differ from PyTorch's (the
generators differ); what must hold is that they are permutations, change
every epoch, and repeat after ``minitorch.manual_seed`` or with a seeded
``minitorch.Generator``.
"""

import collections
import warnings

import numpy as np
import pytest
from hypothesis import given, strategies as st

import minitorch
import minitorch as torch
import minitorch.nn as nn
import minitorch.nn.functional as F
from minitorch import optim
from minitorch.utils.data import (BatchSampler, ChainDataset, ConcatDataset, DataLoader, Dataset,
                                  IterableDataset, RandomSampler, SequentialSampler, Subset,
                                  SubsetRandomSampler, TensorDataset, default_collate, default_convert,
                                  random_split)
from tests.strategies import arrays, shapes

pytestmark = pytest.mark.chapter10


def describe(x):
    """A batch as plain Python: tensors become ("tensor", dtype name, values)."""
    if isinstance(x, torch.Tensor):
        return ("tensor", str(x.dtype).split(".")[-1], x.tolist())
    if isinstance(x, dict):
        return (type(x).__name__, dict(zip(x, map(describe, x.values()))))
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, list(map(describe, x)))
    return x


Point = collections.namedtuple("Point", "x y")


# ----- default_collate ------------------------------------------------------------------
@pytest.mark.task("10.2")
@pytest.mark.parametrize("batch, expected", [
    ([1, 2, 3], ("tensor", "int64", [1, 2, 3])),
    ([1.0, 2.5], ("tensor", "float64", [1.0, 2.5])),
    ([0.1, 0.2], ("tensor", "float64", [0.1, 0.2])),             # exact float64 values
    ([True, False], ("tensor", "bool", [True, False])),
    ([1, 2.5], ("tensor", "float32", [1.0, 2.5])),                # the first sample's type decides
    (["a", "bc"], ("list", ["a", "bc"])),
    ([b"a", b"b"], ("list", [b"a", b"b"])),
    ([torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])], ("tensor", "float32", [[1.0, 2.0], [3.0, 4.0]])),
    ([torch.tensor(1), torch.tensor(2)], ("tensor", "int64", [1, 2])),
    ([np.array([1.0, 2.0]), np.array([3.0, 4.0])], ("tensor", "float64", [[1.0, 2.0], [3.0, 4.0]])),
    ([np.array([1.0], dtype=np.float32), np.array([3.0], dtype=np.float32)], ("tensor", "float32", [[1.0], [3.0]])),
    ([np.float32(1.5), np.float32(2.5)], ("tensor", "float32", [1.5, 2.5])),
    ([np.int64(1), np.int64(2)], ("tensor", "int64", [1, 2])),
    ([np.array(1.5), np.array(2.5)], ("tensor", "float64", [1.5, 2.5])),
    ([(torch.ones(2), 1), (torch.zeros(2), 0)],
     ("list", [("tensor", "float32", [[1.0, 1.0], [0.0, 0.0]]), ("tensor", "int64", [1, 0])])),
    ([[1, 2], [3, 4]], ("list", [("tensor", "int64", [1, 3]), ("tensor", "int64", [2, 4])])),
    ([Point(1, 2.0), Point(3, 4.0)], ("Point", [("tensor", "int64", [1, 3]), ("tensor", "float64", [2.0, 4.0])])),
    ([{"a": 1, "b": "x"}, {"a": 2, "b": "y"}], ("dict", {"a": ("tensor", "int64", [1, 2]), "b": ("list", ["x", "y"])})),
    ([collections.OrderedDict(a=1), collections.OrderedDict(a=2)],
     ("OrderedDict", {"a": ("tensor", "int64", [1, 2])})),
    ([{"img": np.zeros(2), "meta": (1, "s")}, {"img": np.ones(2), "meta": (2, "t")}],
     ("dict", {"img": ("tensor", "float64", [[0.0, 0.0], [1.0, 1.0]]),
               "meta": ("list", [("tensor", "int64", [1, 2]), ("tuple", ["s", "t"])])})),
])
def test_default_collate_matches_pytorch(batch, expected):
    assert describe(default_collate(batch)) == expected


@pytest.mark.task("10.2")
def test_numpy_arrays_keep_their_dtype():
    # PyTorch 2.13: default_collate keeps int32 and float16 arrays as they are.
    assert describe(default_collate([np.array([1, 2], dtype=np.int32), np.array([3, 4], dtype=np.int32)])) == \
        ("tensor", "int32", [[1, 2], [3, 4]])
    assert default_collate([np.array([1.0], dtype=np.float16)]).dtype == torch.float16


@pytest.mark.task("10.2")
@pytest.mark.parametrize("batch, error, message", [
    ([np.array(["a"]), np.array(["b"])], TypeError,
     "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found <U1"),
    ([np.array([None]), np.array([None])], TypeError,
     "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found object"),
    ([None, None], TypeError,
     "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found <class 'NoneType'>"),
    ([{1}, {2}], TypeError,
     "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found <class 'set'>"),
    ([[1, 2], [3]], RuntimeError, "each element in list of batch should be of equal size"),
])
def test_default_collate_errors(batch, error, message):
    with pytest.raises(error) as info:
        default_collate(batch)
    assert str(info.value) == message


@pytest.mark.task("10.2")
def test_default_collate_of_tensors_of_different_shapes_raises_runtime_error():
    with pytest.raises(RuntimeError, match="stack expects each tensor to be equal size"):
        default_collate([torch.ones(2), torch.ones(3)])
    with pytest.raises(IndexError):
        default_collate([])


@pytest.mark.task("10.2")
@given(shape=shapes(max_dims=3), size=st.integers(1, 5), data=st.data())
def test_default_collate_stacks_any_shape(shape, size, data):
    samples = [data.draw(arrays(shape)) for _ in range(size)]
    batch = default_collate([torch.from_numpy(s) for s in samples])
    assert batch.shape == (size,) + shape and np.array_equal(batch.numpy(), np.stack(samples))
    assert np.array_equal(default_collate(samples).numpy(), np.stack(samples))


@pytest.mark.task("10.2")
def test_default_convert_turns_numpy_into_tensors_and_keeps_the_rest():
    assert describe(default_convert([np.array([1, 2]), 3, (np.float32(1),)])) == (
        "list", [("tensor", "int64", [1, 2]), 3, ("list", [("tensor", "float32", 1.0)])])
    assert describe(default_convert(np.float64(2.0))) == ("tensor", "float64", 2.0)
    assert default_convert(2) == 2 and default_convert("s") == "s"
    strings = np.array(["a"])
    assert default_convert(strings) is strings


# ----- DataLoader --------------------------------------------------------------------------
def ten():
    return TensorDataset(torch.arange(10), torch.arange(10) * 2.0)


def firsts(loader):
    return [batch[0].tolist() for batch in loader]


@pytest.mark.task("10.2")
def test_batches_len_and_drop_last():
    assert firsts(DataLoader(ten(), batch_size=4)) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert firsts(DataLoader(ten(), batch_size=4, drop_last=True)) == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert len(DataLoader(ten(), batch_size=3)) == 4 and len(DataLoader(ten(), batch_size=3, drop_last=True)) == 3
    batch = next(iter(DataLoader(ten(), batch_size=4)))
    assert type(batch) is list and batch[1].dtype == torch.float32


@pytest.mark.task("10.2")
def test_default_loader_has_batch_size_one_and_pytorchs_parts():
    loader = DataLoader(ten())
    assert loader.batch_size == 1 and loader.drop_last is False and loader.num_workers == 0
    assert type(loader.sampler) is SequentialSampler and type(loader.batch_sampler) is BatchSampler
    assert loader.collate_fn is default_collate
    assert type(DataLoader(ten(), shuffle=True).sampler) is RandomSampler
    unbatched = DataLoader(ten(), batch_size=None)
    assert unbatched.batch_sampler is None and unbatched.collate_fn is default_convert
    # default_convert turns the (x, y) tuple into a list, as in PyTorch.
    assert describe(next(iter(unbatched))) == ("list", [("tensor", "int64", 0), ("tensor", "float32", 0.0)])
    assert len(unbatched) == 10


@pytest.mark.task("10.2")
def test_plain_lists_work_as_datasets():
    assert [b.tolist() for b in DataLoader([1, 2, 3, 4, 5], batch_size=2)] == [[1, 2], [3, 4], [5]]
    assert next(iter(DataLoader(["a", "b", "c"], batch_size=2))) == ["a", "b"]
    assert describe(next(iter(DataLoader([{"x": 1.0}, {"x": 2.0}], batch_size=2)))) == (
        "dict", {"x": ("tensor", "float64", [1.0, 2.0])})


@pytest.mark.task("10.2")
def test_shuffle_is_a_new_permutation_each_epoch_and_reproducible():
    loader = DataLoader(TensorDataset(torch.arange(50)), batch_size=7, shuffle=True)
    torch.manual_seed(3)
    epochs = [sum(firsts(loader), []) for _ in range(3)]
    assert all(sorted(e) == list(range(50)) for e in epochs)
    assert epochs[0] != epochs[1] != epochs[2]
    torch.manual_seed(3)
    assert [sum(firsts(loader), []) for _ in range(3)] == epochs


@pytest.mark.task("10.2")
def test_shuffle_with_a_generator_ignores_the_global_seed():
    def order(seed):
        loader = DataLoader(list(range(20)), batch_size=20, shuffle=True,
                            generator=torch.Generator().manual_seed(seed))
        torch.manual_seed(seed + 100)
        return next(iter(loader)).tolist()
    assert order(1) == order(1) and order(1) != order(2) and sorted(order(1)) == list(range(20))


@pytest.mark.task("10.2")
def test_custom_collate_fn_sampler_and_batch_sampler():
    loader = DataLoader(list(range(6)), batch_size=4, collate_fn=lambda batch: sum(batch))
    assert list(loader) == [6, 9]
    loader = DataLoader(ten(), batch_size=2, sampler=[9, 0, 5])
    assert firsts(loader) == [[9, 0], [5]] and len(loader) == 2
    loader = DataLoader(ten(), batch_sampler=BatchSampler(SequentialSampler(range(10)), 3, False))
    assert firsts(loader) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    assert loader.batch_size is None and loader.drop_last is False
    assert len(DataLoader(ten(), batch_sampler=BatchSampler(SequentialSampler(range(10)), 3, True))) == 3
    assert firsts(DataLoader(ten(), batch_sampler=[[1, 3], [0]])) == [[1, 3], [0]]


class Counting(IterableDataset):
    def __iter__(self):
        return iter(range(7))


class CountingWithLen(Counting):
    def __len__(self):
        return 7


@pytest.mark.task("10.2")
def test_iterable_datasets():
    assert [b.tolist() for b in DataLoader(Counting(), batch_size=3)] == [[0, 1, 2], [3, 4, 5], [6]]
    assert [b.tolist() for b in DataLoader(Counting(), batch_size=3, drop_last=True)] == [[0, 1, 2], [3, 4, 5]]
    assert list(DataLoader(Counting(), batch_size=None)) == list(range(7))
    assert len(DataLoader(CountingWithLen(), batch_size=3)) == 3
    assert len(DataLoader(CountingWithLen(), batch_size=3, drop_last=True)) == 2
    with pytest.raises(TypeError, match="has no len"):
        len(DataLoader(Counting(), batch_size=3))
    assert list(Counting() + Counting()) == list(range(7)) * 2
    assert isinstance(Counting() + Counting(), ChainDataset)


@pytest.mark.parametrize("make, message", [
    (lambda: DataLoader(ten(), batch_size=0), "batch_size should be a positive integer value, but got batch_size=0"),
    (lambda: DataLoader(ten(), batch_size=-1), "batch_size should be a positive integer value, but got batch_size=-1"),
    (lambda: DataLoader(ten(), batch_size=2.0),
     "batch_size should be a positive integer value, but got batch_size=2.0"),
    (lambda: DataLoader(ten(), num_workers=-1),
     "num_workers option should be non-negative; use num_workers=0 to disable multiprocessing."),
    (lambda: DataLoader(ten(), shuffle=True, sampler=SequentialSampler(ten())),
     "sampler option is mutually exclusive with shuffle"),
    (lambda: DataLoader(ten(), batch_size=2, batch_sampler=[[0]]),
     "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last"),
    (lambda: DataLoader(ten(), batch_sampler=[[0]], drop_last=True),
     "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last"),
    (lambda: DataLoader(ten(), batch_size=None, drop_last=True),
     "batch_size=None option disables auto-batching and is mutually exclusive with drop_last"),
    (lambda: DataLoader(ten(), timeout=-1), "timeout option should be non-negative"),
    (lambda: DataLoader(Counting(), shuffle=True),
     "DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle=True"),
    (lambda: DataLoader(Counting(), sampler=[1, 2]),
     "DataLoader with IterableDataset: expected unspecified sampler option, but got sampler=[1, 2]"),
    (lambda: DataLoader(Counting(), batch_sampler=[[1, 2]]),
     "DataLoader with IterableDataset: expected unspecified batch_sampler option, but got batch_sampler=[[1, 2]]"),
])
def test_loader_errors_match_pytorch(make, message):
    with pytest.raises(ValueError) as info:
        make()
    assert str(info.value) == message


@pytest.mark.task("10.2")
def test_worker_processes_are_refused_clearly():
    with pytest.raises(ValueError, match="^num_workers=2 is not supported: minitorch loads data in the main "
                                         "process only, without worker processes. Use num_workers=0.$"):
        DataLoader(ten(), num_workers=2)
    with pytest.raises(ValueError, match="^prefetch_factor option could only be specified in multiprocessing"):
        DataLoader(ten(), prefetch_factor=2)
    with pytest.raises(ValueError, match="^persistent_workers option needs num_workers > 0"):
        DataLoader(ten(), persistent_workers=True)
    DataLoader(ten(), pin_memory=True, worker_init_fn=print, timeout=0)      # accepted, no effect


@pytest.mark.task("10.2")
def test_batching_attributes_are_frozen_after_init():
    loader = DataLoader(ten())
    with pytest.raises(ValueError, match="^batch_size attribute should not be set after DataLoader is "
                                         "initialized"):
        loader.batch_size = 3
    loader.collate_fn = default_convert          # not one of the frozen ones


# ----- samplers ------------------------------------------------------------------------------
@pytest.mark.task("10.2")
def test_samplers():
    assert list(SequentialSampler(range(3))) == [0, 1, 2]
    assert len(RandomSampler(ten())) == 10 and len(RandomSampler(ten(), num_samples=4)) == 4
    assert sorted(RandomSampler(ten())) == list(range(10))
    drawn = list(RandomSampler(ten(), num_samples=25))
    assert len(drawn) == 25 and sorted(drawn[:20]) == sorted(list(range(10)) * 2)
    with_replacement = list(RandomSampler(ten(), replacement=True, num_samples=200))
    assert len(with_replacement) == 200 and set(with_replacement) == set(range(10))
    assert sorted(SubsetRandomSampler([5, 7, 9])) == [5, 7, 9]
    assert list(BatchSampler(range(7), 3, False)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert len(BatchSampler(range(7), 3, False)) == 3 and len(BatchSampler(range(7), 3, True)) == 2


@pytest.mark.task("10.2")
@pytest.mark.parametrize("num_samples", [None, 7])
@pytest.mark.parametrize("seeded", ["generator", "global"])
def test_an_epoch_draws_one_permutation_after_the_whole_passes(num_samples, seeded):
    # As PyTorch: an epoch of 5 (or 7) indices out of 5 draws two permutations, the second
    # even when none of it is used, so the second epoch starts with the third permutation.
    def sampler(count):
        if seeded == "global":
            torch.manual_seed(3)
            return RandomSampler(range(5), num_samples=count)
        return RandomSampler(range(5), num_samples=count,
                             generator=torch.Generator().manual_seed(3))

    three_permutations = list(sampler(15))
    twice = sampler(num_samples)
    list(twice)
    assert list(twice)[:5] == three_permutations[10:]


@pytest.mark.task("10.2")
def test_sampler_errors_match_pytorch():
    with pytest.raises(ValueError, match="^num_samples should be a positive integer value, but got num_samples=0$"):
        RandomSampler(ten(), num_samples=0)
    with pytest.raises(TypeError, match="^replacement should be a boolean value, but got replacement=1$"):
        RandomSampler(ten(), replacement=1)
    with pytest.raises(ValueError, match="^batch_size should be a positive integer value, but got batch_size=0$"):
        BatchSampler(range(3), 0, False)
    with pytest.raises(ValueError, match="^drop_last should be a boolean value, but got drop_last=1$"):
        BatchSampler(range(3), 2, 1)


# ----- datasets --------------------------------------------------------------------------------
def test_tensor_dataset():
    ds = ten()
    assert describe(ds[3]) == ("tuple", [("tensor", "int64", 3), ("tensor", "float32", 6.0)])
    assert describe(ds[-1]) == ("tuple", [("tensor", "int64", 9), ("tensor", "float32", 18.0)])
    assert describe(ds[[1, 2]]) == ("tuple", [("tensor", "int64", [1, 2]), ("tensor", "float32", [2.0, 4.0])])
    assert len(ds) == 10 and len(ds.tensors) == 2
    with pytest.raises(IndexError):
        ds[10]
    with pytest.raises(AssertionError, match="^Size mismatch between tensors"):
        TensorDataset(torch.ones(3), torch.ones(4))


def test_base_dataset_and_concatenation():
    with pytest.raises(NotImplementedError, match="^Subclasses of Dataset should implement __getitem__.$"):
        Dataset()[0]
    with pytest.raises(TypeError):
        len(Dataset())
    both = ten() + ten()
    assert isinstance(both, ConcatDataset) and len(both) == 20 and both.cumulative_sizes == [10, 20]
    assert both[12][0].item() == 2 and both[-1][0].item() == 9 and both[-20][0].item() == 0
    with pytest.raises(ValueError, match="^absolute value of index should not exceed dataset length$"):
        both[-21]
    with pytest.raises(IndexError):
        both[20]
    with pytest.raises(AssertionError, match="^datasets should not be an empty iterable$"):
        ConcatDataset([])
    with pytest.raises(AssertionError, match="^ConcatDataset does not support IterableDataset"):
        ConcatDataset([Counting()])


@pytest.mark.task("10.2")
def test_subset():
    sub = Subset(ten(), [3, 1, 5])
    assert len(sub) == 3 and sub[1][0].item() == 1
    assert sub[[0, 2]][0].tolist() == [3, 5]
    assert firsts(DataLoader(sub, batch_size=2)) == [[3, 1], [5]]


# ----- random_split ------------------------------------------------------------------------------
@pytest.mark.parametrize("n, lengths, sizes", [
    (10, [3, 7], [3, 7]),
    (10, [0.33, 0.33, 0.34], [4, 3, 3]),
    (11, [0.5, 0.5], [6, 5]),
    (7, [0.1, 0.2, 0.3, 0.4], [1, 2, 2, 2]),
])
def test_random_split_sizes_match_pytorch(n, lengths, sizes):
    parts = random_split(list(range(n)), lengths)
    assert [len(p) for p in parts] == sizes and all(type(p) is Subset for p in parts)
    assert sorted(sum((p.indices for p in parts), [])) == list(range(n))
    assert all(type(p.indices) is list and all(type(i) is int for i in p.indices) for p in parts)


def test_random_split_warns_about_an_empty_split():
    with pytest.warns(UserWarning, match="^Length of split at index 1 is 0. This might result in an empty "
                                         "dataset.$"):
        parts = random_split(list(range(2)), [0.1, 0.1, 0.8])
    assert [len(p) for p in parts] == [1, 0, 1]


@pytest.mark.parametrize("lengths, message", [
    ([3, 6], "Sum of input lengths does not equal the length of the input dataset!"),
    ([0.5, 0.6], "Sum of input lengths does not equal the length of the input dataset!"),
    ([3, 0.7], "Sum of input lengths does not equal the length of the input dataset!"),
    ([1.5, -0.5], "Fraction at index 0 is not between 0 and 1"),
])
def test_random_split_errors(lengths, message):
    with pytest.raises(ValueError) as info:
        random_split(list(range(10)), lengths)
    assert str(info.value) == message


def test_random_split_is_reproducible():
    data = list(range(30))
    first = [p.indices for p in random_split(data, [10, 20], generator=torch.Generator().manual_seed(42))]
    again = [p.indices for p in random_split(data, [10, 20], generator=torch.Generator().manual_seed(42))]
    assert first == again
    torch.manual_seed(0)
    seeded = [p.indices for p in random_split(data, [0.5, 0.5])]
    torch.manual_seed(0)
    assert [p.indices for p in random_split(data, [0.5, 0.5])] == seeded


@given(n=st.integers(1, 40), cuts=st.lists(st.integers(0, 40), max_size=4))
def test_random_split_partitions_the_dataset(n, cuts):
    bounds = sorted({min(c, n) for c in cuts} | {0, n})
    lengths = [b - a for a, b in zip(bounds, bounds[1:])]
    parts = random_split(list(range(n)), lengths)
    assert [len(p) for p in parts] == lengths
    assert sorted(i for p in parts for i in p) == list(range(n))


# ----- Generator --------------------------------------------------------------------------------
def test_generator():
    assert torch.Generator().initial_seed() == 67280421310721         # PyTorch's default seed
    g = torch.Generator()
    assert g.manual_seed(7) is g and g.initial_seed() == 7 and str(g.device) == "cpu"
    assert isinstance(g.seed(), int)
    with pytest.raises(RuntimeError, match="cuda"):
        torch.Generator(device="cuda")


# ----- imports and a whole training loop ----------------------------------------------------------
def test_reachable_as_in_pytorch():
    import minitorch.utils.data as data
    assert minitorch.utils.data is data and minitorch.utils.data.DataLoader is DataLoader
    assert data.TensorDataset is TensorDataset


@pytest.mark.task("10.2")
def test_training_with_a_dataloader_as_the_nn_tutorial_does():
    """A logistic regression on two blobs, trained with TensorDataset, DataLoader and SGD.
    The training loss is the tutorial's first one, written with tensor operations (a
    log-softmax and the picked entries), not ``F.cross_entropy``: its backward is task
    10.1, which comes after this task (10.2) in the course."""
    torch.manual_seed(0)
    x = torch.cat([torch.randn(100, 2) + 2, torch.randn(100, 2) - 2])
    y = torch.cat([torch.zeros(100, dtype=torch.int64), torch.ones(100, dtype=torch.int64)])
    train_ds, valid_ds = random_split(TensorDataset(x, y), [0.8, 0.2])
    train_dl = DataLoader(train_ds, batch_size=16, shuffle=True)
    valid_dl = DataLoader(valid_ds, batch_size=32)
    model = nn.Linear(2, 2)
    opt = optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        model.train()
        for xb, yb in train_dl:
            loss = -F.log_softmax(model(xb), dim=1)[torch.arange(len(yb)), yb].mean()
            loss.backward()
            opt.step()
            opt.zero_grad()
        model.eval()
        with torch.no_grad():
            valid_loss = sum(F.cross_entropy(model(xb), yb, reduction="sum").item()
                             for xb, yb in valid_dl) / len(valid_ds)
    assert len(train_dl) == 10 and len(valid_dl) == 2
    assert valid_loss < 0.1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        accuracy = np.mean([(model(xb).argmax(1) == yb).float().mean().item() for xb, yb in valid_dl])
    assert accuracy > 0.95


# ----- the draw of each epoch -------------------------------------------------------------
@pytest.mark.task("10.2")
@pytest.mark.parametrize("shuffle", [False, True])
def test_every_iteration_draws_one_number_from_the_global_generator(shuffle):
    # PyTorch 2.13: iter(loader) draws one int64 for its workers' seed, shuffled or not
    # (torch.empty((), dtype=torch.int64).random_()), before the sampler draws its order,
    # so a loop over a loader shifts the numbers that come after it.
    loader = DataLoader(range(6), batch_size=3, shuffle=shuffle)
    torch.manual_seed(0)
    batches = list(loader)
    after = torch.rand(3)
    torch.manual_seed(0)
    torch.empty((), dtype=torch.int64).random_()
    order = list(loader.sampler)
    assert sum((batch.tolist() for batch in batches), []) == order
    assert torch.rand(3).equal(after)


@pytest.mark.task("10.2")
def test_the_draw_happens_at_iter_before_any_batch():
    loader = DataLoader(range(6), batch_size=3)
    torch.manual_seed(0)
    iter(loader)
    after_iter = torch.rand(3)
    torch.manual_seed(0)
    torch.empty((), dtype=torch.int64).random_()
    assert torch.rand(3).equal(after_iter)


@pytest.mark.task("10.2")
def test_an_evaluation_loop_shifts_later_dropout_masks():
    data = DataLoader(TensorDataset(torch.ones(4, 2)), batch_size=2)
    torch.manual_seed(0)
    first = F.dropout(torch.ones(8), 0.5)
    torch.manual_seed(0)
    for _ in data:
        pass
    assert not F.dropout(torch.ones(8), 0.5).equal(first)


@pytest.mark.task("10.2")
def test_a_loader_with_its_own_generator_leaves_the_global_one_alone():
    loader = DataLoader(range(4), batch_size=2, generator=torch.Generator().manual_seed(1))
    torch.manual_seed(0)
    expected = torch.rand(3)
    torch.manual_seed(0)
    list(loader)
    assert torch.rand(3).equal(expected)
