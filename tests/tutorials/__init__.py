"""Short programs in the style of PyTorch's tutorials (written for these tests, not copied),
run with ``import minitorch as torch``; the expected values are what PyTorch 2.13 printed for
the same programs."""
