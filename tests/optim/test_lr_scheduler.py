"""optim.lr_scheduler against PyTorch 2.13: schedules, closed forms, plateaus, warnings, state (chapter 9).

Every expected number was printed by PyTorch 2.13 for the same code, and
minitorch's schedulers reproduce them exactly (``==`` on floats): they use
PyTorch's recurrences, operation for operation.  The optimizer has two
parameter groups, with learning rates 0.1 and 0.5.
"""

import warnings

import pytest

import minitorch as torch
import minitorch.nn as nn
from minitorch import optim
from minitorch.optim import lr_scheduler

pytestmark = pytest.mark.chapter9


def two_group_sgd():
    a, b = nn.Parameter(torch.zeros(1)), nn.Parameter(torch.zeros(1))
    return optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1, momentum=0.9)


# (scheduler, options, first group's rates, second group's rates) over 26 epochs.
SCHEDULES = [('StepLR', {'gamma': 0.5, 'step_size': 3},
  [0.1, 0.1, 0.1, 0.05, 0.05, 0.05, 0.025, 0.025, 0.025, 0.0125, 0.0125, 0.0125, 0.00625, 0.00625,
   0.00625, 0.003125, 0.003125, 0.003125, 0.0015625, 0.0015625, 0.0015625, 0.00078125, 0.00078125,
   0.00078125, 0.000390625, 0.000390625],
  [0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.125, 0.125, 0.125, 0.0625, 0.0625, 0.0625, 0.03125, 0.03125,
   0.03125, 0.015625, 0.015625, 0.015625, 0.0078125, 0.0078125, 0.0078125, 0.00390625, 0.00390625,
   0.00390625, 0.001953125, 0.001953125]),
 ('StepLR', {'step_size': 1},
  [0.1, 0.010000000000000002, 0.0010000000000000002, 0.00010000000000000003, 1.0000000000000004e-05,
   1.0000000000000004e-06, 1.0000000000000005e-07, 1.0000000000000005e-08, 1.0000000000000005e-09,
   1.0000000000000006e-10, 1.0000000000000006e-11, 1.0000000000000006e-12, 1.0000000000000007e-13,
   1.0000000000000008e-14, 1.0000000000000009e-15, 1.000000000000001e-16, 1.000000000000001e-17,
   1.000000000000001e-18, 1.000000000000001e-19, 1.0000000000000011e-20, 1.0000000000000012e-21,
   1.0000000000000012e-22, 1.0000000000000013e-23, 1.0000000000000014e-24, 1.0000000000000014e-25,
   1.0000000000000015e-26],
  [0.5, 0.05, 0.005000000000000001, 0.0005000000000000001, 5.0000000000000016e-05,
   5.000000000000002e-06, 5.000000000000002e-07, 5.0000000000000024e-08, 5.0000000000000026e-09,
   5.000000000000002e-10, 5.000000000000003e-11, 5.000000000000003e-12, 5.000000000000003e-13,
   5.000000000000003e-14, 5.000000000000004e-15, 5.000000000000004e-16, 5.000000000000005e-17,
   5.000000000000005e-18, 5.000000000000005e-19, 5.000000000000005e-20, 5.000000000000006e-21,
   5.000000000000006e-22, 5.000000000000006e-23, 5.0000000000000064e-24, 5.000000000000007e-25,
   5.000000000000007e-26]),
 ('MultiStepLR', {'gamma': 0.3, 'milestones': [2, 5, 5, 9]},
  [0.1, 0.1, 0.03, 0.03, 0.03, 0.0026999999999999997, 0.0026999999999999997, 0.0026999999999999997,
   0.0026999999999999997, 0.0008099999999999998, 0.0008099999999999998, 0.0008099999999999998,
   0.0008099999999999998, 0.0008099999999999998, 0.0008099999999999998, 0.0008099999999999998,
   0.0008099999999999998, 0.0008099999999999998, 0.0008099999999999998, 0.0008099999999999998,
   0.0008099999999999998, 0.0008099999999999998, 0.0008099999999999998, 0.0008099999999999998,
   0.0008099999999999998, 0.0008099999999999998],
  [0.5, 0.5, 0.15, 0.15, 0.15, 0.0135, 0.0135, 0.0135, 0.0135, 0.00405, 0.00405, 0.00405, 0.00405,
   0.00405, 0.00405, 0.00405, 0.00405, 0.00405, 0.00405, 0.00405, 0.00405, 0.00405, 0.00405,
   0.00405, 0.00405, 0.00405]),
 ('ExponentialLR', {'gamma': 0.9},
  [0.1, 0.09000000000000001, 0.08100000000000002, 0.07290000000000002, 0.06561000000000002,
   0.05904900000000002, 0.05314410000000002, 0.04782969000000002, 0.043046721000000024,
   0.03874204890000002, 0.03486784401000002, 0.03138105960900001, 0.028242953648100012,
   0.025418658283290013, 0.022876792454961013, 0.020589113209464913, 0.01853020188851842,
   0.01667718169966658, 0.015009463529699923, 0.013508517176729932, 0.01215766545905694,
   0.010941898913151246, 0.009847709021836121, 0.00886293811965251, 0.007976644307687259,
   0.007178979876918534],
  [0.5, 0.45, 0.405, 0.36450000000000005, 0.32805000000000006, 0.2952450000000001,
   0.2657205000000001, 0.23914845000000007, 0.21523360500000008, 0.19371024450000007,
   0.17433922005000008, 0.15690529804500009, 0.14121476824050008, 0.12709329141645007,
   0.11438396227480506, 0.10294556604732455, 0.0926510094425921, 0.08338590849833288,
   0.0750473176484996, 0.06754258588364964, 0.06078832729528468, 0.05470949456575622,
   0.0492385451091806, 0.04431469059826254, 0.039883221538436285, 0.03589489938459266]),
 ('CosineAnnealingLR', {'T_max': 7},
  [0.1, 0.09504844339512096, 0.08117449009293669, 0.061126046697815725, 0.03887395330218429,
   0.018825509907063328, 0.004951556604879048, 0.0, 0.004951556604879043, 0.018825509907063314,
   0.03887395330218427, 0.06112604669781568, 0.08117449009293667, 0.09504844339512099,
   0.10000000000000002, 0.09504844339512099, 0.0811744900929367, 0.061126046697815704,
   0.0388739533021843, 0.018825509907063342, 0.004951556604879055, 0.0, 0.004951556604879043,
   0.018825509907063477, 0.038873953302184606, 0.06112604669781624],
  [0.5, 0.47524221697560476, 0.4058724504646834, 0.3056302334890786, 0.19436976651092142,
   0.09412754953531663, 0.02475778302439524, 0.0, 0.024757783024395214, 0.09412754953531657,
   0.19436976651092136, 0.30563023348907836, 0.40587245046468334, 0.47524221697560487, 0.5,
   0.47524221697560487, 0.40587245046468345, 0.3056302334890785, 0.19436976651092147,
   0.09412754953531668, 0.02475778302439527, 0.0, 0.024757783024395214, 0.09412754953531739,
   0.19436976651092305, 0.30563023348908125]),
 ('CosineAnnealingLR', {'T_max': 4, 'eta_min': 0.01},
  [0.1, 0.08681980515339464, 0.05500000000000001, 0.023180194846605363, 0.01, 0.023180194846605363,
   0.05500000000000002, 0.08681980515339469, 0.10000000000000006, 0.0868198051533947,
   0.05500000000000005, 0.023180194846605412, 0.01, 0.023180194846605363, 0.054999999999999924,
   0.08681980515339449, 0.09999999999999988, 0.08681980515339452, 0.05499999999999996,
   0.02318019484660539, 0.01, 0.023180194846605363, 0.05499999999999987, 0.08681980515339455,
   0.09999999999999995, 0.08681980515339459],
  [0.5, 0.4282411613907041, 0.255, 0.08175883860929586, 0.01, 0.08175883860929584, 0.255,
   0.42824116139070423, 0.5000000000000001, 0.4282411613907043, 0.2550000000000001,
   0.08175883860929607, 0.01, 0.08175883860929584, 0.2549999999999995, 0.42824116139070323,
   0.4999999999999992, 0.4282411613907034, 0.25499999999999967, 0.08175883860929599, 0.01,
   0.08175883860929584, 0.2549999999999992, 0.42824116139070356, 0.4999999999999996,
   0.4282411613907038]),
 ('LinearLR', {},
  [0.03333333333333333, 0.04666666666666667, 0.060000000000000005, 0.07333333333333335,
   0.08666666666666668, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1,
   0.1, 0.1, 0.1, 0.1, 0.1, 0.1],
  [0.16666666666666666, 0.23333333333333334, 0.30000000000000004, 0.36666666666666675,
   0.43333333333333346, 0.5000000000000001, 0.5000000000000001, 0.5000000000000001,
   0.5000000000000001, 0.5000000000000001, 0.5000000000000001, 0.5000000000000001,
   0.5000000000000001, 0.5000000000000001, 0.5000000000000001, 0.5000000000000001,
   0.5000000000000001, 0.5000000000000001, 0.5000000000000001, 0.5000000000000001,
   0.5000000000000001, 0.5000000000000001, 0.5000000000000001, 0.5000000000000001,
   0.5000000000000001, 0.5000000000000001]),
 ('LinearLR', {'end_factor': 0.75, 'start_factor': 0.25, 'total_iters': 6},
  [0.025, 0.03333333333333333, 0.041666666666666664, 0.049999999999999996, 0.058333333333333334,
   0.06666666666666667, 0.075, 0.075, 0.075, 0.075, 0.075, 0.075, 0.075, 0.075, 0.075, 0.075, 0.075,
   0.075, 0.075, 0.075, 0.075, 0.075, 0.075, 0.075, 0.075, 0.075],
  [0.125, 0.16666666666666666, 0.20833333333333331, 0.24999999999999997, 0.29166666666666663,
   0.33333333333333326, 0.3749999999999999, 0.3749999999999999, 0.3749999999999999,
   0.3749999999999999, 0.3749999999999999, 0.3749999999999999, 0.3749999999999999,
   0.3749999999999999, 0.3749999999999999, 0.3749999999999999, 0.3749999999999999,
   0.3749999999999999, 0.3749999999999999, 0.3749999999999999, 0.3749999999999999,
   0.3749999999999999, 0.3749999999999999, 0.3749999999999999, 0.3749999999999999,
   0.3749999999999999])]

CLOSED_FORM = [('StepLR', {'gamma': 0.5, 'step_size': 3}, [0.05, 0.025, 0.0125, 0.05]),
 ('StepLR', {'step_size': 1},
  [0.00010000000000000003, 1.0000000000000004e-08, 1.0000000000000006e-12, 1.0000000000000003e-05]),
 ('MultiStepLR', {'gamma': 0.3, 'milestones': [2, 5, 5, 9]},
  [0.03, 0.0026999999999999997, 0.00081, 0.03]),
 ('ExponentialLR', {'gamma': 0.9}, [0.0729, 0.04782969000000001, 0.031381059609000006, 0.06561]),
 ('CosineAnnealingLR', {'T_max': 7},
  [0.06112604669781572, 0.0, 0.06112604669781568, 0.03887395330218429]),
 ('CosineAnnealingLR', {'T_max': 4, 'eta_min': 0.01},
  [0.023180194846605363, 0.08681980515339464, 0.0231801948466054, 0.01]),
 ('LinearLR', {}, [0.07333333333333335, 0.1, 0.1, 0.08666666666666667]),
 ('LinearLR', {'end_factor': 0.75, 'start_factor': 0.25, 'total_iters': 6},
  [0.05, 0.07500000000000001, 0.07500000000000001, 0.05833333333333333])]

LAMBDA = [[0.1, 0.5], [0.095, 0.25], [0.09025, 0.16666666666666666], [0.0857375, 0.125],
          [0.081450625, 0.1],
 [0.07737809374999999, 0.08333333333333333], [0.07350918906249998, 0.07142857142857142]]

METRICS = [1.0, 0.9, 0.95, 0.95, 0.95, 0.95, 0.85, 0.86, 0.86, 0.86, 0.86, 0.86, 0.86, 0.86, 0.86,
           0.86, 0.86,
 0.86]

PLATEAU = [({'patience': 2},
  [(0.1, 0.5), (0.1, 0.5), (0.1, 0.5), (0.1, 0.5), (0.010000000000000002, 0.05),
   (0.010000000000000002, 0.05), (0.010000000000000002, 0.05), (0.010000000000000002, 0.05),
   (0.010000000000000002, 0.05), (0.0010000000000000002, 0.005000000000000001),
   (0.0010000000000000002, 0.005000000000000001), (0.0010000000000000002, 0.005000000000000001),
   (0.00010000000000000003, 0.0005000000000000001), (0.00010000000000000003, 0.0005000000000000001),
   (0.00010000000000000003, 0.0005000000000000001),
   (1.0000000000000004e-05, 5.0000000000000016e-05),
   (1.0000000000000004e-05, 5.0000000000000016e-05),
   (1.0000000000000004e-05, 5.0000000000000016e-05)],
  [0, 0, 1, 2, 0, 1, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2]),
 ({'cooldown': 2,
   'factor': 0.5,
   'min_lr': [0.02, 0.1],
   'mode': 'max',
   'patience': 1,
   'threshold': 0.1,
   'threshold_mode': 'abs'},
  [(0.1, 0.5), (0.1, 0.5), (0.05, 0.25), (0.05, 0.25), (0.05, 0.25), (0.05, 0.25), (0.025, 0.125),
   (0.025, 0.125), (0.025, 0.125), (0.025, 0.125), (0.02, 0.1), (0.02, 0.1), (0.02, 0.1),
   (0.02, 0.1), (0.02, 0.1), (0.02, 0.1), (0.02, 0.1), (0.02, 0.1)],
  [0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1]),
 ({'eps': 0.001, 'factor': 0.5, 'min_lr': 0.04, 'patience': 0},
  [(0.1, 0.5), (0.1, 0.5), (0.05, 0.25), (0.04, 0.125), (0.04, 0.0625), (0.04, 0.04), (0.04, 0.04),
   (0.04, 0.04), (0.04, 0.04), (0.04, 0.04), (0.04, 0.04), (0.04, 0.04), (0.04, 0.04), (0.04, 0.04),
   (0.04, 0.04), (0.04, 0.04), (0.04, 0.04), (0.04, 0.04)],
  [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
 ({'mode': 'max', 'patience': 1, 'threshold': 0.05},
  [(0.1, 0.5), (0.1, 0.5), (0.010000000000000002, 0.05), (0.010000000000000002, 0.05),
   (0.0010000000000000002, 0.005000000000000001), (0.0010000000000000002, 0.005000000000000001),
   (0.00010000000000000003, 0.0005000000000000001), (0.00010000000000000003, 0.0005000000000000001),
   (1.0000000000000004e-05, 5.0000000000000016e-05),
   (1.0000000000000004e-05, 5.0000000000000016e-05),
   (1.0000000000000004e-06, 5.000000000000002e-06), (1.0000000000000004e-06, 5.000000000000002e-06),
   (1.0000000000000005e-07, 5.000000000000002e-07), (1.0000000000000005e-07, 5.000000000000002e-07),
   (1.0000000000000005e-08, 5.0000000000000024e-08),
   (1.0000000000000005e-08, 5.0000000000000024e-08),
   (1.0000000000000005e-08, 5.0000000000000026e-09),
   (1.0000000000000005e-08, 5.0000000000000026e-09)],
  [0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1])]


def _id(case):
    return case[0] + "(" + ", ".join(f"{k}={v}" for k, v in case[1].items()) + ")"


@pytest.mark.parametrize("name, options, first, second", SCHEDULES, ids=[_id(c) for c in SCHEDULES])
def test_schedule_matches_pytorch_exactly(name, options, first, second):
    opt = two_group_sgd()
    scheduler = getattr(lr_scheduler, name)(opt, **options)
    got_first, got_second = [scheduler.get_last_lr()[0]], [opt.param_groups[1]["lr"]]
    for _ in range(25):
        opt.step()
        scheduler.step()
        got_first.append(scheduler.get_last_lr()[0])
        got_second.append(opt.param_groups[1]["lr"])
    assert got_first == first and got_second == second
    assert scheduler.last_epoch == 25 and scheduler.base_lrs == [0.1, 0.5]


@pytest.mark.parametrize("name, options, expected", CLOSED_FORM, ids=[_id(c) for c in CLOSED_FORM])
def test_step_with_an_epoch_uses_the_closed_form_and_warns(name, options, expected):
    opt = two_group_sgd()
    scheduler = getattr(lr_scheduler, name)(opt, **options)
    got = []
    for epoch in [3, 7, 11, 4]:
        opt.step()
        with pytest.warns(UserWarning, match="^The epoch parameter in `scheduler.step\\(\\)` was not "):
            scheduler.step(epoch)
        got.append(scheduler.get_last_lr()[0])
        assert scheduler.last_epoch == epoch
    assert got == expected


def test_lambda_lr_with_one_function_per_group():
    opt = two_group_sgd()
    scheduler = lr_scheduler.LambdaLR(opt, [lambda e: 0.95 ** e, lambda e: 1 / (e + 1)])
    got = [scheduler.get_last_lr()]
    for _ in range(6):
        opt.step()
        scheduler.step()
        got.append(scheduler.get_last_lr())
    assert got == LAMBDA


@pytest.mark.parametrize("options, rates, bad_epochs", PLATEAU, ids=[str(c[0]) for c in PLATEAU])
def test_reduce_lr_on_plateau_matches_pytorch(options, rates, bad_epochs):
    opt = two_group_sgd()
    scheduler = lr_scheduler.ReduceLROnPlateau(opt, **options)
    got_rates, got_bad = [], []
    for metric in METRICS:
        scheduler.step(torch.tensor(metric, dtype=torch.float64))      # a 0-d tensor works too
        got_rates.append(tuple(scheduler.get_last_lr()))
        got_bad.append(scheduler.num_bad_epochs)
    assert got_rates == rates and got_bad == bad_epochs
    assert [g["lr"] for g in opt.param_groups] == list(rates[-1])


def test_reduce_lr_on_plateau_state_dict_matches_pytorch():
    scheduler = lr_scheduler.ReduceLROnPlateau(two_group_sgd(), patience=1)
    for metric in [1.0, 1.0, 1.0, 0.5]:
        scheduler.step(metric)
    assert scheduler.state_dict() == {
        "factor": 0.1, "default_min_lr": 0, "min_lrs": [0, 0], "patience": 1, "cooldown": 0,
        "eps": 1e-08, "last_epoch": 4, "_last_lr": [0.010000000000000002, 0.05], "mode_worse": float("inf"),
        "mode": "min", "threshold": 0.0001, "threshold_mode": "rel", "best": 0.5, "cooldown_counter": 0,
        "num_bad_epochs": 0}
    other = lr_scheduler.ReduceLROnPlateau(two_group_sgd(), mode="max")
    other.load_state_dict(scheduler.state_dict())
    assert other.mode == "min" and other.best == 0.5 and other.get_last_lr() == scheduler.get_last_lr()


# ----- what a scheduler adds to its optimizer, and its own state ------------------------------
def test_building_a_scheduler_sets_initial_lr_and_the_first_rate():
    opt = two_group_sgd()
    scheduler = lr_scheduler.LinearLR(opt, start_factor=0.5, total_iters=2)
    assert [g["initial_lr"] for g in opt.param_groups] == [0.1, 0.5]
    assert [g["lr"] for g in opt.param_groups] == [0.05, 0.25] == scheduler.get_last_lr()
    assert list(opt.state_dict()["param_groups"][0])[-2:] == ["initial_lr", "params"]
    assert "initial_lr: 0.1" in repr(opt)


def test_state_dict_holds_everything_but_the_optimizer():
    opt = two_group_sgd()
    scheduler = lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    opt.step()
    scheduler.step()
    assert scheduler.state_dict() == {
        "step_size": 2, "gamma": 0.5, "base_lrs": [0.1, 0.5], "last_epoch": 1, "_step_count": 2,
        "_is_initial": False, "_get_lr_called_within_step": False, "_last_lr": [0.1, 0.5]}
    assert list(scheduler.state_dict()) == ["step_size", "gamma", "base_lrs", "last_epoch", "_step_count",
                                            "_is_initial", "_get_lr_called_within_step", "_last_lr"]


def test_multistep_milestones_are_a_counter():
    scheduler = lr_scheduler.MultiStepLR(two_group_sgd(), milestones=[5, 2, 5])
    assert scheduler.state_dict()["milestones"] == {5: 2, 2: 1}


def test_scheduler_state_survives_save_and_load(tmp_path):
    opt = two_group_sgd()
    scheduler = lr_scheduler.MultiStepLR(opt, milestones=[2, 5, 5, 9], gamma=0.3)
    torch.save(scheduler.state_dict(), tmp_path / "sched.pt")
    fresh = lr_scheduler.MultiStepLR(two_group_sgd(), milestones=[1])
    fresh.load_state_dict(torch.load(tmp_path / "sched.pt"))
    fresh.optimizer.step()
    with pytest.warns(UserWarning, match="epoch parameter"):
        fresh.step(7)
    assert fresh.get_last_lr()[0] == CLOSED_FORM[2][2][1]


def test_lambda_lr_state_dict_keeps_callable_objects_but_not_functions():
    class Warmup:
        def __init__(self, epochs):
            self.epochs = epochs

        def __call__(self, epoch):
            return min(1.0, (epoch + 1) / self.epochs)

    opt = two_group_sgd()
    scheduler = lr_scheduler.LambdaLR(opt, [Warmup(4), lambda e: 1.0])
    state = scheduler.state_dict()
    assert state["lr_lambdas"] == [{"epochs": 4}, None]
    assert list(state) == ["base_lrs", "last_epoch", "_step_count", "_is_initial",
                           "_get_lr_called_within_step", "_last_lr", "lr_lambdas"]
    state["lr_lambdas"][0]["epochs"] = 10
    fresh = lr_scheduler.LambdaLR(two_group_sgd(), [Warmup(4), lambda e: 1.0])
    fresh.load_state_dict(state)
    assert fresh.lr_lambdas[0].epochs == 10 and "lr_lambdas" in state


def test_resuming_from_a_checkpoint_continues_the_schedule():
    p = nn.Parameter(torch.zeros(1))
    opt = optim.SGD([p], lr=0.1)
    scheduler = lr_scheduler.CosineAnnealingLR(opt, T_max=10)
    for _ in range(5):
        opt.step()
        scheduler.step()
    checkpoint = {"optimizer": opt.state_dict(), "scheduler": scheduler.state_dict()}
    expected = [0.03454915028125264, 0.020610737385376353, 0.009549150281252635]   # PyTorch 2.13

    # With last_epoch: the optimizer's state (and its initial_lr) must be loaded first.
    opt2 = optim.SGD([p], lr=0.7)
    opt2.load_state_dict(checkpoint["optimizer"])
    resumed = lr_scheduler.CosineAnnealingLR(opt2, T_max=10, last_epoch=4)
    assert resumed.get_last_lr() == [0.05000000000000001] and resumed.last_epoch == 5
    # With the scheduler's own state_dict.
    opt3 = optim.SGD([p], lr=0.7)
    reloaded = lr_scheduler.CosineAnnealingLR(opt3, T_max=10)
    opt3.load_state_dict(checkpoint["optimizer"])
    reloaded.load_state_dict(checkpoint["scheduler"])
    for o, s in [(opt2, resumed), (opt3, reloaded)]:
        got = []
        for _ in range(3):
            o.step()
            s.step()
            got.append(s.get_last_lr()[0])
        assert got == expected


# ----- warnings -------------------------------------------------------------------------
def test_no_warning_in_the_right_order():
    opt = two_group_sgd()
    scheduler = lr_scheduler.ExponentialLR(opt, gamma=0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(3):
            opt.step()
            scheduler.step()


def test_warns_when_the_scheduler_steps_before_the_optimizer():
    opt = two_group_sgd()
    scheduler = lr_scheduler.StepLR(opt, step_size=2)
    with pytest.warns(UserWarning, match="^Detected call of `lr_scheduler.step\\(\\)` before "
                                         "`optimizer.step\\(\\)`."):
        scheduler.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # only the first call is checked
        scheduler.step()


def test_warns_when_optimizer_step_was_replaced_after_the_scheduler():
    opt = two_group_sgd()
    scheduler = lr_scheduler.StepLR(opt, step_size=2)
    opt.step = lambda closure=None: None
    with pytest.warns(UserWarning, match="^Seems like `optimizer.step\\(\\)` has been overridden after "
                                         "learning rate scheduler initialization"):
        scheduler.step()


def test_the_optimizer_step_is_wrapped_once_and_still_works():
    opt = two_group_sgd()
    lr_scheduler.StepLR(opt, step_size=2)
    wrapped = opt.step
    lr_scheduler.ExponentialLR(opt, gamma=0.9)
    assert opt.step is wrapped and wrapped.__name__ == "step"
    p = opt.param_groups[0]["params"][0]
    p.grad = torch.ones(1)
    assert opt.step() is None and opt._opt_called and p.item() != 0.0


def test_get_lr_outside_step_warns_to_use_get_last_lr():
    scheduler = lr_scheduler.ExponentialLR(two_group_sgd(), gamma=0.5)
    with pytest.warns(UserWarning, match="^To get the last learning rate computed by the scheduler, please "
                                         "use `get_last_lr\\(\\)`.$"):
        scheduler.get_lr()


# ----- errors, with PyTorch's types -----------------------------------------------------------
def test_errors():
    opt = two_group_sgd()
    with pytest.raises(TypeError, match="^str is not an Optimizer$"):
        lr_scheduler.StepLR("sgd", 2)
    with pytest.raises(KeyError, match="param 'initial_lr' is not specified in param_groups\\[0\\] when "
                                       "resuming scheduler with last_epoch >= 0"):
        lr_scheduler.StepLR(opt, 2, last_epoch=3)
    with pytest.raises(ValueError, match="^Expected 2 lr_lambdas, but got 1$"):
        lr_scheduler.LambdaLR(opt, [lambda e: 1.0])
    with pytest.raises(ValueError, match="^Starting multiplicative factor expected to be greater than 0"):
        lr_scheduler.LinearLR(opt, start_factor=0)
    with pytest.raises(ValueError, match="^Ending multiplicative factor expected to be between 0 and 1.$"):
        lr_scheduler.LinearLR(opt, end_factor=2)
    with pytest.raises(ValueError, match="^Factor should be < 1.0.$"):
        lr_scheduler.ReduceLROnPlateau(opt, factor=1)
    with pytest.raises(ValueError, match="^mode x is unknown!$"):
        lr_scheduler.ReduceLROnPlateau(opt, mode="x")
    with pytest.raises(ValueError, match="^threshold mode x is unknown!$"):
        lr_scheduler.ReduceLROnPlateau(opt, threshold_mode="x")
    with pytest.raises(ValueError, match="^expected 2 min_lrs, got 3$"):
        lr_scheduler.ReduceLROnPlateau(opt, min_lr=[0, 0, 0])
    with pytest.raises(TypeError, match="^list is not an Optimizer$"):
        lr_scheduler.ReduceLROnPlateau([])


def test_plateau_with_a_group_added_later():
    opt = two_group_sgd()
    shared_min = lr_scheduler.ReduceLROnPlateau(opt, patience=0, min_lr=0.001)
    opt.add_param_group({"params": [nn.Parameter(torch.zeros(1))], "lr": 1.0})
    shared_min.step(1.0)
    shared_min.step(2.0)
    assert shared_min.get_last_lr() == [0.010000000000000002, 0.05, 0.1]
    per_group = lr_scheduler.ReduceLROnPlateau(two_group_sgd(), patience=0, min_lr=[0, 0])
    per_group.optimizer.add_param_group({"params": [nn.Parameter(torch.zeros(1))]})
    per_group.step(1.0)
    with pytest.raises(RuntimeError, match="^The number of param groups in the `optimizer` \\(3\\) differs"):
        per_group.step(2.0)
