"""A module that fails on import, for tests/test_audit.py."""
raise RuntimeError("this module cannot be imported")
