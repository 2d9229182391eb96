"""Examples of environments written in Python on Nereid's engine (docs/python.md)."""
