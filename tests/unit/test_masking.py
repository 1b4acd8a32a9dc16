"""Masking rules (backends/model/masking.py): paths into the key, the value and the headers, patterns over every
text, the fields changed named, and failing closed — bytes a rule cannot read, or a path into a field that is not
JSON, masked whole; a context's rules parsed from kafkatop.toml, and a project's file adding to the user's, never
taking one away. On a cluster: tests/integration/test_masking_mock.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kafkatop.backends.model.contexts import read_contexts
from kafkatop.backends.model.errors import BadInput
from kafkatop.backends.model.masking import MaskRules, mask_record, parse_mask
from kafkatop.backends.model.messages import BrowsedRecord, TimestampType


def record(key: bytes | None, value: bytes | None, headers: tuple[tuple[str, bytes | None], ...] = ()) -> BrowsedRecord:
    return BrowsedRecord("t", 0, 7, None, TimestampType.NOT_AVAILABLE, key, value, headers)


def test_paths_patterns_and_what_was_masked() -> None:
    rules = parse_mask(["value.items[*].pan", ".card", "headers.AUTHORIZATION", "~ /secret-\\w+/i"], True, "c")
    value = {"items": [{"pan": 1}, {"pan": 2}], "card": {"n": 1}, "memo": "SECRET-abc and more", "n": 3}
    shown = mask_record(record(b"k", json.dumps(value).encode(), (("authorization", b"x"), ("id", b"y"))), rules)
    assert json.loads(shown.value or b"") == {"items": [{"pan": "[masked]"}, {"pan": "[masked]"}], "card": "[masked]",
                                              "memo": "[masked] and more", "n": 3}  # fmt: skip
    assert shown.key == b"k" and shown.headers == (("authorization", b"[masked]"), ("id", b"y"))
    assert shown.masked == ("value", "headers")
    untouched = record(b"k", b'{"other": 1}')
    assert mask_record(untouched, rules) is untouched  # nothing to mask: the very record


def test_it_fails_closed() -> None:
    rules = parse_mask(["key.ssn", "~ /\\d{16}/"], True, "c")
    avro = record(b"\x00\x00\x00\x00\x01\xff\xfe", b"\x00\x00\x00\x00\x01\x02\xff")  # wire format: not text
    shown = mask_record(avro, rules)
    assert (shown.key, shown.value, shown.masked) == (b"[masked]", b"[masked]", ("key", "value"))
    plain = mask_record(record(b"not json", b"no number here"), rules)
    assert (plain.key, plain.value, plain.masked) == (b"[masked]", b"no number here", ("key",))
    numbers = mask_record(record(None, b'{"pan": 4111111111111111, "ok": true}'), rules)
    assert json.loads(numbers.value or b"") == {"pan": "[masked]", "ok": True}


def test_show_records_false_and_the_description() -> None:
    hidden = mask_record(record(b"k", b"v", (("h", b"x"),)), MaskRules(show_records=False))
    assert (hidden.key, hidden.value, hidden.headers) == (b"[hidden: show-records = false]",) * 2 + (
        (("h", b"[hidden: show-records = false]"),),
    )
    assert parse_mask(["key", "~ /x/"], True, "c").describe() == "masked: key, ~ /x/"
    assert MaskRules(show_records=False).describe() == "records hidden (show-records = false)"
    assert (
        parse_mask(['headers["x.trace"]', "~ /card/i"], True, "c").describe() == 'masked: headers["x.trace"], ~ /card/i'
    )


@pytest.mark.parametrize(("rules", "said"), [
    (["card"], "mask 'card': a path is .name… (the value), key…, value… or headers.NAME, or a pattern ~ /regex/"),
    (["~ /(/"], "mask '~ /(/': not a regular expression"),
    (["headers.a.b"], "mask 'headers.a.b': a header is named once"),
    ([""], "mask is a list of paths and patterns"),
    (["~ //"], "mask '~ //' matches empty text"),
    (["~ /\\d*/"], "mask '~ /\\\\d*/' matches empty text"),
    (["~ /4111/x"], "mask '~ /4111/x': /…/x: the one flag is i"),
])  # fmt: skip
def test_a_bad_rule_is_named(rules: list[object], said: str) -> None:
    with pytest.raises(BadInput, match="^" + re.escape("where: " + said)):
        parse_mask(rules, True, "where")


def test_a_context_s_masks_and_a_project_file_adds_to_them(tmp_path: Path) -> None:
    user, project = tmp_path / "config.toml", tmp_path / "kafkatop.toml"
    user.write_text('[contexts.prod]\nbootstrap-server = "k:9092"\nmask = ["key.ssn"]\n')
    project.write_text('[contexts.prod]\nbootstrap-server = "k:9092"\nmask = [".card"]\nshow-records = true\n')
    prod = read_contexts([user, project]).get("prod")
    assert [str(p) for p in prod.mask.paths] == ["key.ssn", "value.card"]
    project.write_text('[contexts.prod]\nbootstrap-server = "k:9092"\nmask = "key.ssn"\n')
    with pytest.raises(BadInput, match=r"\[contexts.prod\]: mask is a list"):
        read_contexts([project])
