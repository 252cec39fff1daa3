"""Small helpers shared by autograd and nn (hook handles: chapters 3 and 5)."""
