"""Completion for the fields that take a file (a connector's config, a schema, an export): as a shell completes a
path, the rest of the one name in the folder that the typed part begins (→ or End takes it). Relative paths are the
working directory's, `~` is the home folder. The folder is listed off the event loop, and only its first names."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from textual.suggester import Suggester

LISTED = 2_000  # entries read from one folder at most: a huge folder completes from its first ones, never stalls


class PathSuggester(Suggester):
    def __init__(self) -> None:
        super().__init__(use_cache=False, case_sensitive=True)  # the folder may change between two keys

    async def get_suggestion(self, value: str) -> str | None:
        if not value or "\n" in value:
            return None
        return await asyncio.to_thread(complete, value)


def complete(value: str) -> str | None:
    """`value` with the rest of the only name (or the names' common start) in its folder that begins with its last
    part; a folder gets its `/`. None when nothing, or nothing more, fits."""
    folder, slash, start = value.rpartition("/")
    where = Path(os.path.expanduser(folder)) if folder else Path("/" if slash else ".")
    names = []
    try:
        with os.scandir(where) as entries:
            for read, entry in enumerate(entries):
                if read >= LISTED:
                    break
                if entry.name.startswith(start) and (start.startswith(".") or not entry.name.startswith(".")):
                    names.append(entry.name + ("/" if entry.is_dir() else ""))
    except OSError:
        return None
    if not names:
        return None
    common = os.path.commonprefix(names)
    return value + common[len(start) :] if len(common) > len(start) else None
