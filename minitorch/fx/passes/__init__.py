"""Passes over fx graphs (chapter 18): ``shape_prop``."""
