"""The durability check: sequenced records while a partition's leader fails, read back and verified."""
