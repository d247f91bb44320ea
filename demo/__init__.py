"""The end-to-end showcase run by ``./run demo``."""
