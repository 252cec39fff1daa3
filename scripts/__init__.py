"""Tools for the book's build and checks (run them as `python -m scripts.NAME`)."""
