"""`kafkatop`: parse the command line, pick the cluster (attach or demo), run the app."""

from __future__ import annotations

import argparse
import sys

from kafkatop.backends.errors import KafkatopError

DEMO_BANNER = (
    "DEMO — a built-in 3-broker mock cluster (librdkafka), not a real Kafka. "
    "Point kafkatop at yours with --bootstrap-server HOST:PORT."
)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="kafkatop", description="Run, watch and understand a Kafka cluster.")
    p.add_argument("--bootstrap-server", metavar="HOST:PORT[,…]", help="attach to this cluster (else: demo)")
    p.add_argument(
        "--command-config", metavar="FILE", help="client properties (security settings), as Kafka's own tools"
    )
    p.add_argument("--include-internal", action="store_true", help="show internal topics (__consumer_offsets, …)")
    p.add_argument("--interval", type=float, default=1.0, metavar="SECONDS", help="poll interval (default 1)")
    p.add_argument("--timeout", type=float, default=2.0, metavar="SECONDS", help="per-poll timeout (default 2)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.interval <= 0 or args.timeout <= 0:
        print("kafkatop: --interval and --timeout must be positive numbers of seconds", file=sys.stderr)
        return 2
    # Imported here so `kafkatop --help` answers at once.
    from kafkatop.backends.admin import AdminSource
    from kafkatop.backends.properties import read_properties
    from kafkatop.tui.app import KafkatopApp, Settings

    client_config: dict[str, str] = {}
    if args.command_config:
        try:
            client_config = read_properties(args.command_config)
        except KafkatopError as e:
            print(f"kafkatop: --command-config {e}", file=sys.stderr)
            return 2
    demo = None
    banner = None
    bootstrap = args.bootstrap_server
    watch_groups: tuple[str, ...] = ()
    if bootstrap is None:
        from kafkatop.backends.demo import start_demo_cluster

        try:
            demo = start_demo_cluster()
        except KafkatopError as e:
            print(f"kafkatop: cannot start the demo cluster: {e}", file=sys.stderr)
            return 1
        bootstrap, watch_groups, banner = demo.bootstrap_servers, demo.groups, DEMO_BANNER
    try:
        source = AdminSource(
            bootstrap,
            client_config=client_config,
            timeout_s=args.timeout,
            include_internal=args.include_internal,
            watch_groups=watch_groups,
        )
        KafkatopApp(source.poll, Settings(poll_interval_s=args.interval, banner=banner)).run()
    except KafkatopError as e:
        print(f"kafkatop: {e}", file=sys.stderr)
        return 1
    finally:
        if demo is not None:
            demo.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
