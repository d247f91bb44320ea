"""Adapters that load placement_ext inside upstream services."""
