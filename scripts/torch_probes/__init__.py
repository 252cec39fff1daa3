"""A differential probe of minitorch against PyTorch (never imported by tests or by minitorch).

See README.md in this folder.  ``python -m scripts.torch_probes`` runs it.
"""
