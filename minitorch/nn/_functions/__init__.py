"""The Functions behind ``nn.functional``'s layers, grouped as PyTorch groups its
layers: activations, losses, convolution, pooling, padding, normalisation and
embedding (chapter 11).  ``nn.functional`` checks the arguments and calls them."""
