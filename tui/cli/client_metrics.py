"""`kafkatop client-metrics`: client-metrics resources (KIP-714) as kafka-client-metrics.sh lists, describes,
alters (creates) and deletes them, line for line; --json for a script. --delete asks first on a terminal (--yes:
without asking)."""

from __future__ import annotations

import argparse
import json
import uuid

from kafkatop.backends.insight.client_metrics_lines import describe_lines
from kafkatop.backends.kafka.cluster.client_metrics import ClientMetricsAdmin
from kafkatop.backends.model.text import shell_word
from kafkatop.tui.cli.common import confirmed, connection, typed_name
from kafkatop.tui.cli.exits import DONE, FAILED, UsageError, err

ACTIONS = ("--list", "--describe", "--alter", "--delete")
SELECTORS = ("client_id", "client_instance_id", "client_software_name", "client_software_version",
             "client_source_address", "client_source_port")  # fmt: skip
CHANGES = ("--metrics", "--interval", "--match", "--generate-name")


def _check(args: argparse.Namespace) -> str:
    """Exactly one action, and only the options that go with it, as the tool checks them."""
    given = [a for a, on in zip(ACTIONS, (args.list, args.describe, args.alter, args.delete), strict=True) if on]
    if len(given) != 1:
        raise UsageError(
            "give exactly one action: --alter, --delete, --describe or --list (as kafka-client-metrics.sh)"
        )
    action = given[0]
    changes = [f for f, v in zip(CHANGES, (args.metrics, args.interval, args.match, args.generate_name or None),
                                 strict=True) if v is not None]  # fmt: skip
    if action != "--alter" and changes:
        raise UsageError(f"{changes[0]} goes with --alter, not {action}")
    if action == "--list" and args.resource is not None:
        raise UsageError("--list lists every resource: --describe --resource N describes one")
    if action != "--list" and args.resource is None and args.name is not None and args.bootstrap_server:
        # The tool's `--describe --name N`: here --name names a lab, which --bootstrap-server overrides, so the
        # describe would silently be of every resource.
        raise UsageError(f"--name names a lab cluster in kafkatop (and --bootstrap-server already names the "
                         f"cluster): the tool's --name is --resource here: {action} --resource "
                         f"{shell_word(args.name)}")  # fmt: skip
    if action == "--alter" and (args.resource is None) == (not args.generate_name):
        raise UsageError("--alter needs one of --resource N or --generate-name (the tool's --name is --resource here)")
    if action == "--delete" and args.resource is None:
        raise UsageError("--delete needs --resource N: which client-metrics resource to delete")
    if args.interval and not args.interval.isdigit():
        raise UsageError(f"--interval {args.interval!r}: the push interval is a whole number of milliseconds")
    if args.match:
        for pair in args.match.split(","):
            key, eq, _ = pair.partition("=")
            if not eq or key not in SELECTORS:
                raise UsageError(f"--match {pair!r}: give k=v with k one of {', '.join(SELECTORS)}")
    return action


def cmd_client_metrics(args: argparse.Namespace) -> int:
    action = _check(args)
    admin = ClientMetricsAdmin(connection(args), args.timeout)
    if action == "--list":
        names = admin.list()
        print(json.dumps(names, indent=2) if args.json else "\n".join(names))
        return DONE
    if action == "--describe":
        return _describe(args, admin)
    if action == "--alter":
        name = str(uuid.uuid4()) if args.generate_name else args.resource
        given = {"interval.ms": args.interval, "metrics": args.metrics, "match": args.match}
        to_set = {k: v for k, v in given.items() if v}
        to_delete = [k for k, v in given.items() if v == ""]
        admin.alter(name, to_set, to_delete)
        print(json.dumps({"altered": name}) if args.json else f"Altered client metrics config for {name}.")
        return DONE
    question = f"delete client-metrics resource {args.resource!r} (every client it matches stops pushing its metrics)?"
    unasked = "nothing was deleted: --delete asks first, on a terminal; add --yes to delete without asking"
    if not confirmed(question, yes=args.yes, unasked=unasked, typed=typed_name(args)):
        err("not confirmed: nothing was deleted")
        return FAILED
    admin.delete(args.resource)
    print(
        json.dumps({"deleted": args.resource}) if args.json else f"Deleted client metrics config for {args.resource}."
    )
    return DONE


def _describe(args: argparse.Namespace, admin: ClientMetricsAdmin) -> int:
    listed = admin.list()
    names = [args.resource] if args.resource is not None else listed
    described = {n: admin.describe(n) for n in names if n in listed}
    if args.json:
        print(json.dumps([{"name": n, "configs": dict(e)} for n, e in described.items()], indent=2))
        return DONE
    lines = describe_lines(names, described)
    if lines:  # none listed: the tool prints nothing (where --list prints one empty line)
        print("\n".join(lines))
    return DONE
