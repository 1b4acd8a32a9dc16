"""`kafkatop configs`: a topic's, a broker's or the broker defaults' configs, and changes to them, as
kafka-configs.sh --describe [--all] / --alter prints them, line for line."""

from __future__ import annotations

import argparse
import json

from kafkatop.backends.insight.configs import altered_line, configs_json, format_configs
from kafkatop.backends.kafka.cluster.configs import ConfigAdmin
from kafkatop.backends.model.configs import ConfigResource, parse_alter, parse_delete
from kafkatop.backends.model.properties import parse_properties
from kafkatop.backends.model.text import printable
from kafkatop.tui.cli.common import connection
from kafkatop.tui.cli.exits import UsageError

WHICH = "give one of --topic NAME, --broker ID, --broker-defaults"
# kafka-configs.sh's other entity types, and where kafkatop has them.
ELSEWHERE = {
    "users": "see `kafkatop users` (SCRAM credentials, quotas)",
    "clients": "`kafkatop users` lists client quotas",
    "ips": "`kafkatop users` lists IP quotas",
    "client-metrics": "see `kafkatop client-metrics`",
    "broker-loggers": "brokers' log levels are not read or set by kafkatop",
    "groups": "group configs are not read or set by kafkatop yet",
}


def resource_of(args: argparse.Namespace) -> ConfigResource:
    entity = _entity(args)
    given = [
        flag for flag, value in (("--topic", args.topic), ("--broker", args.broker),
                                 ("--broker-defaults", args.broker_defaults or None), ("--entity-type", entity))
        if value is not None
    ]  # fmt: skip
    if len(given) != 1:
        said = f"{' and '.join(given)} together" if given else "no resource"
        raise UsageError(f"configs of what? {said}: {WHICH}")
    if entity is not None:
        return entity
    if args.topic is not None:
        return ConfigResource.topic(args.topic)
    if args.broker is not None:
        return ConfigResource.broker(args.broker)
    return ConfigResource.broker_defaults()


def _entity(args: argparse.Namespace) -> ConfigResource | None:
    """kafka-configs.sh's --entity-type topics|brokers with --entity-name or --entity-default, checked as it checks
    them; None without --entity-type."""
    kind, name, default = args.entity_type, args.entity_name, args.entity_default
    if kind is None:
        if name is not None or default:
            raise UsageError("--entity-name and --entity-default need --entity-type topics or brokers")
        return None
    if kind in ELSEWHERE:
        raise UsageError(f"--entity-type {kind}: {ELSEWHERE[kind]}; configs reads topics and brokers")
    if kind not in ("topics", "brokers"):
        raise UsageError(f"--entity-type {printable(kind)}: not one of kafka-configs.sh's; configs reads topics and "
                         "brokers")  # fmt: skip
    if (name is None) == (not default):
        said = "--entity-name and --entity-default together" if default else "no --entity-name"
        raise UsageError(f"--entity-type {kind} with {said}: give --entity-name NAME" + (
            " or --entity-default" if kind == "brokers" else ""))  # fmt: skip
    if kind == "topics":
        if default:
            raise UsageError("--entity-default is for brokers: topics have no default entity; give --entity-name")
        return ConfigResource.topic(name)
    if default:
        return ConfigResource.broker_defaults()
    if not name.isdigit():
        raise UsageError(f"--entity-name {printable(name)}: a broker is named by its id, a whole number (--entity-type "
                         "brokers --entity-name 1)")  # fmt: skip
    return ConfigResource.broker(int(name))


def added_from_file(name: str | None) -> dict[str, str]:
    """kafka-configs.sh's --add-config-file: NAME=VALUE lines as Java reads a .properties file (values as they are:
    a list is `a,b`, with no brackets)."""
    if name is None:
        return {}
    try:
        with open(name, encoding="utf-8") as f:
            return parse_properties(f.read())
    except (OSError, UnicodeDecodeError) as e:
        why = e.strerror if isinstance(e, OSError) else "not UTF-8 text"
        raise UsageError(f"--add-config-file {printable(name)}: cannot read it ({why}); give a file of NAME=VALUE "
                         "lines") from None  # fmt: skip


def cmd_configs(args: argparse.Namespace) -> int:
    resource = resource_of(args)
    # --alter alone is kafka-configs.sh's action (None here), its changes in --add-config(-file) and --delete-config.
    alter = [item for item in args.alter or () if item is not None]
    if args.add_config_file is not None and not args.alter:
        raise UsageError("--add-config-file goes with --alter, as kafka-configs.sh takes it: --alter --add-config-file "
                         "FILE")  # fmt: skip
    if args.add_config_file is not None and alter:
        raise UsageError("--add-config and --add-config-file together: give one, as kafka-configs.sh takes them")
    from_file = added_from_file(args.add_config_file)
    changing = bool(alter or args.delete_config or from_file)
    if args.describe and (changing or args.alter):
        raise UsageError("--describe and --alter together: give one (describe after the change: leave --describe out)")
    if args.alter and not changing:
        file = args.add_config_file
        empty = "" if file is None else f"--add-config-file {printable(file)} is empty: "
        raise UsageError(f"{empty}--alter changes nothing alone: give --add-config K=V or --delete-config NAME with it")
    # Parsed before any request: a malformed item is refused without asking Kafka.
    to_set = from_file or parse_alter(alter)
    to_delete = parse_delete(args.delete_config or ())
    admin = ConfigAdmin(connection(args), timeout_s=args.timeout)
    if changing:
        if args.all_configs:
            raise UsageError("--all lists configs; with --alter or --delete leave it out (then describe with --all)")
        admin.alter(resource, to_set, to_delete)
        if not args.json:
            print(altered_line(resource))  # kafka-configs' own words
            return 0
    configs = admin.describe(resource, expect=(to_set, to_delete) if changing else None)
    if args.json:
        print(json.dumps(configs_json(configs, args.all_configs), indent=2))
    else:
        print(format_configs(configs, args.all_configs))
    return 0
