"""HTTP APIs placement_ext serves (request handling only)."""
