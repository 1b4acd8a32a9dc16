"""Streams groups (KIP-1071) read and deleted over kafkatop's own protocol code."""
