"""Data objects over the database: plain classes, module-level queries."""
