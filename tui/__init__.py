"""kafkatop's Textual interface: renders snapshots from kafkatop.backends and never fetches data itself."""
