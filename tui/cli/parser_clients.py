"""The client commands' options: groups (consumer groups), consume (a topic's records) and counts (a topic counted
by Spark) — standard library only, so `kafkatop --help` answers at once."""

from __future__ import annotations

from kafkatop.tui.cli.options import Parser
from kafkatop.tui.cli.parser_common import format_options, json_option, timeout_option
from kafkatop.tui.cli.values import COUNT, offset, reset_value, signed, spark_master, text, whole

GROUPS: dict[str, str] = {
    "help": "list groups (as kafka-groups.sh), describe and delete consumer groups (as kafka-consumer-groups.sh)",
    "description": "Lists the groups of every type (--list, or no --group) as kafka-groups.sh --list prints them "
    "(GROUP, TYPE: Classic, Consumer (KIP-848), Share, Streams; PROTOCOL), with its filters; describes consumer "
    "groups in kafka-consumer-groups.sh "
    "--describe's layouts (committed offsets, log end and lag per partition by default; --members; --state), or "
    "deletes them (--delete: Kafka refuses a group that has members, and says so), or resets their committed offsets "
    "(--reset-offsets, as kafka-consumer-groups.sh: --dry-run, the default, prints the plan in its table; --execute "
    "commits it; --export prints it as the CSV --from-file reads).",
    "epilog": "Exit codes: 0 done; 1 Kafka could not be asked, or refused a deletion or a reset (its error name and "
    "message are shown; a group with members is not reset); 2 bad input (an unknown group, options that do not go "
    "together).",
}


def add_groups(g: Parser) -> None:
    g.option("--group", action="append", metavar="GROUP", type=text("a group id"), help="a group; repeatable",
             shown="all, with --all-groups")  # fmt: skip
    g.option("--all-groups", action="store_true", help="every group")
    g.option("--list", action="store_true",
             help="every group with its type and protocol type, as kafka-groups.sh --list")  # fmt: skip
    g.option("--group-type", "--type", dest="group_type", choices=("classic", "consumer", "share", "streams"),
             metavar="TYPE",
             help="with --list: groups of this type (classic, consumer, share, streams)", shown="all")  # fmt: skip
    g.option("--protocol", metavar="PROTOCOL", type=text("a protocol type"),
             help="with --list: groups of this protocol type (consumer, connect, share, …)", shown="all")  # fmt: skip
    g.option("--consumer", action="store_true",
             help="with --list: consumer groups of either protocol, and groups that only commit")  # fmt: skip
    g.option("--share", action="store_true", help="with --list: share groups")
    g.option("--streams", action="store_true", help="with --list: streams groups")
    g.option("--json", action="store_true", help="with --list: a JSON list of {group, type, protocol}")
    g.option("--describe", action="store_true", help="describe them (the default with --group)")
    g.option("--offsets", action="store_true", help="committed offsets, log end and lag per partition (the default)")
    g.option("--members", action="store_true", help="the members and how many partitions each has")
    g.option("--state", action="store_true", help="coordinator, assignment strategy, state, members")
    g.option("--verbose", action="store_true",
             help="with --members: each member's epoch, assignment and target (KIP-848); with --state: the group and "
             "target assignment epochs; with the offsets: the leader epoch of each commit")  # fmt: skip
    g.option("--delete", action="store_true", help="delete the --group(s): refused by Kafka while one has members")
    g.option("--delete-offsets", action="store_true",
             help="delete the --group's committed offsets of --topic: refused while the group consumes it")  # fmt: skip
    g.option("--topic", action="append", metavar="TOPIC[:P,P…]", type=text("a topic, or TOPIC:PARTITIONS"),
             help="with --delete-offsets or --reset-offsets: a topic (all its partitions) or some of its partitions; "
             "repeatable", shown="none")  # fmt: skip
    add_reset_offsets(g)
    timeout_option(g, 15.0, "to read, reset or delete the groups")


def add_reset_offsets(g: Parser) -> None:
    """kafka-consumer-groups.sh --reset-offsets' options, by its names."""
    g.option("--reset-offsets", action="store_true",
             help="reset the --group's (or --all-groups') committed offsets: a plan (--dry-run, the default), or "
             "--execute; Kafka refuses a group with members")  # fmt: skip
    g.option("--to-earliest", action="store_true", help="reset to each partition's log start")
    g.option("--to-latest", action="store_true", help="reset to each partition's log end")
    g.option("--to-current", action="store_true", help="reset to the committed offset (the log end where none)")
    g.option("--to-offset", type=signed("an offset"), metavar="N", help="reset to offset N (moved into the log)",
             shown="none")  # fmt: skip
    g.option("--shift-by", type=signed("a whole number (negative moves back)"), metavar="N",
             help="move the committed offset by N (negative: back)", shown="none")  # fmt: skip
    g.option("--to-datetime", type=reset_value("datetime"), metavar="YYYY-MM-DDTHH:mm:SS.sss",
             help="reset to the first record at or after the time (UTC unless a zone is given: +01:00; as the tool)",
             shown="none")  # fmt: skip
    g.option("--by-duration", type=reset_value("duration"), metavar="PnDTnHnMnS",
             help="reset to the first record at or after that long ago (ISO-8601: PT30M, P1DT12H)",
             shown="none")  # fmt: skip
    g.option("--from-file", metavar="CSV", type=text("a CSV file"),
             help="reset to the offsets of a CSV file, topic,partition,offset a line (as --export writes it)",
             shown="none")  # fmt: skip
    g.option("--all-topics", action="store_true", help="with --reset-offsets: every topic the group committed for")
    g.option("--dry-run", action="store_true", help="with --reset-offsets: print the plan only (the default)")
    g.option("--execute", action="store_true",
             help="with --reset-offsets: commit it (an attached cluster, at a terminal, asks its name)")  # fmt: skip
    g.option("--export", action="store_true", help="with --reset-offsets: the plan as CSV, as --from-file reads it")
    g.option("--yes", "--force", dest="yes", action="store_true",
             help="with --execute: without asking for the cluster's name at a terminal")  # fmt: skip


SHARE_GROUPS: dict[str, str] = {
    "help": "list, describe and delete share groups (KIP-932 queues, Kafka 4.1+), as kafka-share-groups.sh",
    "description": "Lists the share groups (--list, or no --group; --list --state: with their state), describes them "
    "in kafka-share-groups.sh --describe's layouts (each partition's share-partition start offset by default; "
    "--members; --state; --verbose adds the epochs), or deletes them (--delete: refused for a group with members, "
    "as the tool refuses it) or their start offsets of whole topics (--delete-offsets, refused by Kafka while the "
    "group has members). Both deletions ask first unless --yes. --json adds each partition's end and lag (end "
    "minus start offset: the records not yet acknowledged).",
    "epilog": "A cluster without share groups (Kafka before 4.1, the librdkafka mock, share.version=0) is said in one "
    "line, with how to turn them on. Exit codes: 0 done; 1 Kafka could not be asked, has no share groups, or "
    "refused a deletion; 2 bad input (an unknown group, options that do not go together).",
}


def add_share_groups(s: Parser) -> None:
    s.option("--group", action="append", metavar="GROUP", type=text("a group id"), help="a share group; repeatable",
             shown="all, with --all-groups")  # fmt: skip
    s.option("--all-groups", action="store_true", help="every share group")
    s.option("--list", action="store_true", help="the share groups' names (with --state: and their state)")
    s.option("--describe", action="store_true", help="describe them (the default with --group)")
    s.option("--offsets", action="store_true", help="each partition's start offset (the default)")
    s.option("--members", action="store_true", help="the members, their partitions and assignment")
    s.option("--state", action="store_true", help="coordinator, state, members")
    s.option("--verbose", action="store_true", help="with --describe: the leader, group and member epochs too")
    s.option("--delete", action="store_true", help="delete the --group(s): refused while one has members")
    s.option("--delete-offsets", action="store_true",
             help="delete the --group's start offsets of each --topic: refused while it has members")  # fmt: skip
    s.option("--topic", action="append", metavar="TOPIC", type=text("a topic name"),
             help="with --delete-offsets: a topic; repeatable", shown="none")  # fmt: skip
    s.option("--yes", action="store_true", help="delete without asking")
    json_option(s, "the result as JSON (a description adds each partition's end offset and lag)")
    timeout_option(s, 15.0, "to read or delete the groups")


CONSUME: dict[str, str] = {
    "help": "print a topic's records from an offset, a time or the beginning to the end, then exit (as kcat -C -e)",
    "description": "Reads each partition of --topic (or one, --partition) from the start you give — an offset "
    "(negative: that many before the end, as kcat -o -N), the first record at or after a time, or the beginning "
    "(the default) — to its end as it was when reached, then exits. It joins no consumer group: no offsets are "
    "committed, no group sees it. Values print one per line as kafka-console-consumer.sh prints them (null for "
    "none); --format takes kcat's tokens; --json prints kcat -J's fields. Records of one partition come in "
    "order; partitions interleave. Keys and values are read in their topic's formats (--key-format, "
    "--value-format, [formats.TOPIC] in kafkatop.toml, or as picked in the live view: said on stderr) and, with a "
    "Schema Registry, auto decodes what is in its wire format. --json is an export: it keeps each record's bytes, "
    "which `kafkatop produce --json` sends back byte for byte, unless --key-format or --value-format is given on "
    "the command line (as kcat -J decodes only with -s): that field is then its decoded value, with its schema id.",
    "epilog": "Format tokens: %t topic, %p partition, %o offset, %k key, %v or %s value, %K key length, %S value "
    "length, %T timestamp (ms), %h headers, %e leader epoch, %% a %; \\n \\t escapes. A newline ends each record "
    "unless the format ends with one. Exit codes: 0 done (the count on stderr); 1 Kafka could not be read, or "
    "records could not be decoded in the format asked for (they print as bytes; a registry that cannot be read is "
    "said once); 2 bad input (an unknown topic or partition, a bad offset, time or format, a schema that cannot be "
    "read).",
}


def add_consume(c: Parser) -> None:
    c.option("--topic", required=True, metavar="TOPIC", type=text("a topic name"), help="the topic to read")
    c.option("--partition", type=whole(0, what="a partition number"), metavar="P", help="one partition",
             shown="all")  # fmt: skip
    c.option("--offset", type=offset, metavar="N",
             help="start at offset N of each partition; -N: N records before its end",
             shown="the beginning")  # fmt: skip
    c.option("--timestamp", metavar="TIME", type=text("a time"),
             help="start at each partition's first record at or after TIME: ISO 8601 (local time unless a zone is "
             "given), HH:MM today, an age (15m ago) or ms since the epoch", shown="the beginning")  # fmt: skip
    c.option("--from-beginning", action="store_true", help="start at the beginning, as kafka-console-consumer.sh",
             shown="on, without --offset or --timestamp")  # fmt: skip
    c.option("--max-messages", type=COUNT, metavar="N", help="stop after N records", shown="all to the end")
    c.option("--format", metavar="FMT", type=str, help="kcat-style output format, e.g. '%%p %%o %%k %%v'",
             shown="the value")  # fmt: skip
    json_option(c, "one JSON object per record (kcat -J's fields)")
    format_options(c, "read")
    c.option("--isolation-level", choices=("read_uncommitted", "read_committed"), default="read_uncommitted",
             help="read_committed skips aborted transactions' records and stops at the last stable offset",
             shown="read_uncommitted")  # fmt: skip
    c.option("--consumer.config", dest="command_config", metavar="FILE", type=text("a file"), shown="none",
             help="kafka-console-consumer.sh's name for --command-config")  # fmt: skip
    timeout_option(c, 10.0, "with nothing read")


PRODUCE: dict[str, str] = {
    "help": "send records to a topic: lines from stdin or a file (as kafka-console-producer.sh, kcat -P), or the "
    "JSON lines of `consume --json` (an import)",
    "description": "Sends each line of stdin (or --file) as one record, as kafka-console-producer.sh does: the line "
    "is the value, an empty line an empty value; --property parse.key=true splits KEY<key.separator>VALUE, "
    "parse.headers=true reads NAME:VALUE,… before headers.delimiter, null.marker sends no key, value or header "
    "value where the text equals it, ignore.error=true sends a line that lacks a separator as it is. "
    "--key-delimiter cuts keys as kcat -K (a line without it has no key); --header adds a header to every record. "
    "--json imports what `kafkatop consume --json` (or kcat -J) printed: each record's key, value and headers "
    "byte for byte (`key_encoding`, `payload_encoding`: base64; `headers_encoding`: one entry per header, null for "
    "text, base64), its timestamp (ts) and its partition; topic, offset, tstype and leader_epoch are the "
    "source's and are not read. Records are sent as they are read (a stream of any length), then every delivery "
    "is waited for; the count goes to stderr. Formats: auto (the default) and string send the line's bytes as "
    "they are; json, hex, base64 and the schema formats encode it (avro, protobuf, json-schema from JSON, with "
    "--value-schema or the registry's subject). With a registry whose subject TOPIC-value exists, auto says so. "
    "--json takes only the command line's --key-format/--value-format (the bytes of an export go as they are), "
    "and refuses a decoded key or payload (a JSON object or array, as `consume --json --value-format …` or kcat "
    "-J -s print them) without one, naming the format to give.",
    "epilog": "A bad line (no separator, bad JSON, a partition the topic lacks) is one error naming its number: a "
    "--file is read whole first, so nothing is sent; from stdin the lines before it are sent and nothing after "
    "it. Export and import: `kafkatop consume --topic a --json > a.jsonl; kafkatop produce --topic b --json "
    "--file a.jsonl` — into a new topic with as many partitions, `consume --json` of b prints a's lines but for "
    "the topic (offsets too, where a's began at 0 with no gaps: no transaction markers, compaction or deleted "
    "records; partitions interleave, so compare partition by partition). A LogAppendTime topic stamps its own "
    "times; a record's ts older than the topic's retention.ms is deleted soon after. Exit codes: 0 every record "
    "delivered; 1 some failed (each reason once, with its count), Kafka refused the Write (with the line "
    "that grants it), or the registry a record is written through could not be asked; 2 bad input (a schema "
    "that cannot be read too, before anything is sent); 130 Ctrl-C (what was sent is waited for, and counted; "
    "Ctrl-C again stops the wait).",
}


def add_produce(p: Parser) -> None:
    p.option("--topic", required=True, metavar="TOPIC", type=text("a topic name"), help="the topic to write to")
    p.option("--file", metavar="FILE", type=text("a file"), help="read the records from FILE", shown="stdin")
    json_option(p, "read JSON lines as `kafkatop consume --json` prints them (kcat -J's fields): an import")
    p.option("--property", action="append", metavar="NAME=VALUE", type=str,
             help="kafka-console-producer.sh's reader properties: parse.key, key.separator (\\t), parse.headers, "
             "headers.delimiter (\\t), headers.separator (,), headers.key.separator (:), null.marker, ignore.error; "
             "repeatable", shown="none: each line is a value")  # fmt: skip
    p.option("--key-delimiter", metavar="DELIM", type=str, shown="none",
             help="KEY<DELIM>VALUE, as kcat -K: a line without DELIM is a value with no key")  # fmt: skip
    p.option("--header", action="append", metavar="NAME=VALUE", type=str,
             help="a header on every record, as kcat -H (NAME alone: no value); repeatable", shown="none")  # fmt: skip
    p.option("--partition", type=whole(0, what="a partition number"), metavar="P", help="send every record to P",
             shown="the partitioner's (by key, as Java's), or each JSON record's own")  # fmt: skip
    p.option("--repartition", action="store_true",
             help="with --json: the partitioner places each record (by key), not its own partition")  # fmt: skip
    p.option("--acks", "--request-required-acks", dest="acks", choices=("0", "1", "all", "-1"), default="all",
             help="acks: 0, 1, all (-1); the tool's --request-required-acks too")  # fmt: skip
    p.option("--compression", "--compression-codec", dest="compression", choices=("none", "gzip", "snappy", "lz4",
             "zstd"), default="none", help="compression.type: none, gzip, snappy, lz4, zstd; the tool's "
             "--compression-codec too (with its value: alone, the tool's gzip, it is refused)")  # fmt: skip
    p.option("--producer-property", action="append", metavar="NAME=VALUE", type=text("NAME=VALUE"),
             help="a librdkafka producer setting (linger.ms=50, batch.size=…), checked before anything is sent; "
             "secrets go in --command-config; repeatable", shown="none")  # fmt: skip
    p.option("--producer.config", dest="command_config", metavar="FILE", type=text("a file"), shown="none",
             help="kafka-console-producer.sh's name for --command-config")  # fmt: skip
    format_options(p, "write")
    timeout_option(p, 30.0, "to deliver what is queued at the end (what is left then fails)")


COUNTS: dict[str, str] = {
    "help": "per-partition counts of a topic, computed by Spark (records, bytes, offsets, timestamps, top keys)",
    "description": "Count a topic's records per partition with Spark (PySpark), and check each count against the "
    "partition's high − low watermark.",
}


def add_counts(counts: Parser) -> None:
    counts.option("--topic", required=True, metavar="NAME", type=text("a topic name"), help="the topic to count")
    counts.option("--master", type=spark_master, default="local[*]", metavar="URL",
                  help="local[*] (this machine's cores), local[N], or spark://HOST:7077")  # fmt: skip
    counts.option("--top-keys", type=whole(0, what="a count"), default=5, metavar="N",
                  help="most frequent keys per partition")  # fmt: skip
    counts.option("--max-records-per-partition", type=COUNT, metavar="N",
                  help="split larger partitions into ranges for Spark", shown="no split")  # fmt: skip
    json_option(counts, "the report as JSON")
    timeout_option(counts, 600.0, "give up after")
