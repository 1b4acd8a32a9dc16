"""Transactions, read and ended as kafka-transactions.sh does, and the live view's transactions."""
