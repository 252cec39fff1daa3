"""Small helpers shared by autograd and nn."""
