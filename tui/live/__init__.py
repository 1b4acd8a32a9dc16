"""The Textual live view: renders snapshots, never fetches. It imports only pure modules (model, insight, ports, a
check's model and report).
"""
