"""Thin adapters that load our code inside upstream services."""
