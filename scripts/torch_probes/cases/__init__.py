"""Probe cases, one module per area.  Each module registers its hand-written cases when
imported and may define ``generate(rng, scale)`` to add seeded random (fuzz) cases."""
