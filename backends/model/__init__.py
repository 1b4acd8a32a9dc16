"""The model: frozen snapshots, events, errors and validation rules of everything kafkatop shows. Standard library
only.
"""
