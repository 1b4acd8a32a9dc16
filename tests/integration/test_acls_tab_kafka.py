"""The ACLs tab against a real Apache Kafka 4.1 lab with StandardAuthorizer (`up --security sasl_ssl --authorizer`,
one broker, one controller), the live view composed as `kafkatop --name … --state-dir …` composes it (admin.properties:
a super user): a binding kafka-acls.sh added is listed; the tab's add dialog adds one that kafka-acls.sh --list then
shows; its remove takes it away again, as kafka-acls.sh --list then shows. Headless at 160x45.

Set KAFKA_HOME to run it (skipped without). Free ports below the ephemeral range; the lab is stopped at the end.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from textual.widgets import Input, Static

from kafkatop.tui.cli.compose import compose_app
from kafkatop.tui.cli.parser import build_parser
from kafkatop.tui.live.screens.confirm import ConfirmScreen
from kafkatop.tui.live.tabs.acls.add import AddAclScreen
from kafkatop.tui.live.tabs.acls.pane import binding_key
from kafkatop.tui.live.widgets.line_table import LineTable
from kafkatop.tui.live.widgets.status_bar import StatusBar
from tests.conftest import pilot_until
from tests.fixtures.acl_views import binding
from tests.integration.authorizer_lab import AuthorizerLab, authorizer_lab

pytestmark = pytest.mark.kafka


@pytest.fixture(scope="module")
def lab(kafka_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[AuthorizerLab]:
    with authorizer_lab(tmp_path_factory.mktemp("acls-tab"), kafka_home, name="acltab") as lab:
        yield lab


def listed(lab: AuthorizerLab) -> str:
    done = lab.kafka_acls("--list", "--topic", "orders")
    assert done.returncode == 0, done.stderr
    return done.stdout


async def test_the_tab_lists_adds_and_removes_as_kafka_acls_sh_sees_it(lab: AuthorizerLab) -> None:
    added = lab.kafka_acls("--add", "--allow-principal", "User:client", "--producer", "--topic", "orders")
    assert added.returncode == 0, added.stderr
    args = build_parser().parse_args([*lab.flags, "--interval", "1"])
    with ExitStack() as stack:
        app = compose_app(args, stack, terminal=False)
        async with app.run_test(size=(160, 45)) as pilot:
            await pilot_until(pilot, lambda: app.view.acls is not None and app.view.acls.bindings, "the ACLs read")
            await pilot.press("W")
            table = app.query_one("#acl-table", LineTable)
            await pilot_until(pilot, lambda: table.row_count == 3, "kafka-acls.sh's three bindings in the tab")
            assert [table.row(k) for k in table._keys] == [
                ("User:client", "Topic:orders", "LITERAL", "ALLOW", op, "*") for op in ("Create", "Describe", "Write")
            ]
            header = str(app.query_one("#acls-header", Static).render())
            assert header == ("authorizer StandardAuthorizer, super users User:admin · you: User:admin (super user) · "
                              "3 bindings")  # fmt: skip
            bar = app.query_one(StatusBar).text.plain
            assert "authorizer StandardAuthorizer, super users User:admin" in bar

            await pilot.press("Y")
            assert isinstance(app.screen, AddAclScreen)
            for field, value in (("principal", "User:carol"), ("operations", "Read"), ("name", "orders")):
                app.screen.query_one(f"#acl-{field}", Input).value = value
            await pilot.press("enter")
            await pilot_until(pilot, lambda: app.last_action is not None, "the add to end")
            assert app.last_action is not None and app.last_action.error is None, app.last_action
            carol = binding("User:carol", "READ", "TOPIC", "orders")
            await pilot_until(pilot, lambda: binding_key(carol) in table._keys, "User:carol in the tab")
            assert "(principal=User:carol, host=*, operation=READ, permissionType=ALLOW)" in listed(lab)

            table.move_to(binding_key(carol))
            await pilot.press("V")
            assert isinstance(app.screen, ConfirmScreen)
            assert app.screen.detail.startswith("User:carol ALLOW Read on Topic:orders (LITERAL) from *")
            app.last_action = None
            await pilot.press("y")
            await pilot_until(pilot, lambda: app.last_action is not None, "the removal to end")
            assert app.last_action is not None and app.last_action.error is None, app.last_action
            await pilot_until(pilot, lambda: table.row_count == 3, "User:carol gone from the tab")
            after = listed(lab)
            assert "User:carol" not in after and after.count("principal=User:client") == 3
