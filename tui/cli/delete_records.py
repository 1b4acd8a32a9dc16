"""`kafkatop delete-records`: the records of partitions below an offset deleted, as kafka-delete-records.sh deletes
them from its --offset-json-file, printing its lines; asked first at a terminal (--yes does not ask)."""

from __future__ import annotations

import argparse

from kafkatop.backends.kafka.cluster.delete_records import RecordsAdmin
from kafkatop.backends.model.delete_records import HIGH_WATERMARK, parse_offset_json, tool_lines
from kafkatop.backends.model.errors import unreadable
from kafkatop.backends.model.text import printable
from kafkatop.tui.cli.common import confirmed, connection, typed_name
from kafkatop.tui.cli.exits import DONE, FAILED, UsageError, err


def cmd_delete_records(args: argparse.Namespace) -> int:
    path = args.offset_json_file
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise UsageError(f"--offset-json-file {path}: {unreadable(e, 'a folder, not the offset JSON file')}") from None
    offsets = parse_offset_json(text, f"--offset-json-file {path}")
    if not offsets:
        err(f"--offset-json-file {path} names no partition: nothing was deleted")
        return FAILED
    listed = ", ".join(f"{printable(t)}-{p} below {'its end' if o == HIGH_WATERMARK else o}"
                       for (t, p), o in list(offsets.items())[:10])  # fmt: skip
    more = f" and {len(offsets) - 10} more" if len(offsets) > 10 else ""
    question = f"delete the records of {len(offsets)} partition(s) for good: {listed}{more}?"
    unasked = "nothing was deleted: delete-records asks first, on a terminal; add --yes to delete without asking"
    if not confirmed(question, yes=args.yes, unasked=unasked, typed=typed_name(args)):
        err("not confirmed: nothing was deleted")
        return FAILED
    print("Executing records delete operation", flush=True)
    with RecordsAdmin(connection(args), args.timeout) as admin:
        answers = admin.delete_below(offsets)
    for line in tool_lines(answers):
        print(line)
    return FAILED if any(isinstance(a, str) for a in answers.values()) else DONE
