"""`kafkatop configs`: a topic's, a broker's or the broker defaults' configs, and changes to them, as
kafka-configs.sh --describe [--all] / --alter prints them, line for line."""

from __future__ import annotations

import argparse
import json

from kafkatop.backends.insight.configs import altered_line, configs_json, format_configs
from kafkatop.backends.kafka.cluster.configs import ConfigAdmin
from kafkatop.backends.model.configs import ConfigResource, parse_alter, parse_delete
from kafkatop.tui.cli.common import connection
from kafkatop.tui.cli.exits import UsageError

WHICH = "give one of --topic NAME, --broker ID, --broker-defaults"


def resource_of(args: argparse.Namespace) -> ConfigResource:
    given = [
        flag for flag, value in (("--topic", args.topic), ("--broker", args.broker),
                                 ("--broker-defaults", args.broker_defaults or None)) if value is not None
    ]  # fmt: skip
    if len(given) != 1:
        said = f"{' and '.join(given)} together" if given else "no resource"
        raise UsageError(f"configs of what? {said}: {WHICH}")
    if args.topic is not None:
        return ConfigResource.topic(args.topic)
    if args.broker is not None:
        return ConfigResource.broker(args.broker)
    return ConfigResource.broker_defaults()


def cmd_configs(args: argparse.Namespace) -> int:
    resource = resource_of(args)
    # Parsed before any request: a malformed item is refused without asking Kafka.
    to_set = parse_alter(args.alter or ())
    to_delete = parse_delete(args.delete_config or ())
    admin = ConfigAdmin(connection(args), timeout_s=args.timeout)
    changing = bool(args.alter or args.delete_config)
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
