"""An OAuth lab's issuer as the lab runs it (backends/lab/oauth.py): its own process, on this Python, on loopback.
It serves once its JWKS answers (what the runner waits for), hands a token to a client of the lab's files and
refuses a wrong secret, says each in its log (never a token or a secret), and stops cleanly on SIGTERM (`stopped`).

Runs everywhere: the issuer is kafkatop's own code; no Kafka is needed. The process is stopped by pid."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from kafkatop.backends.lab.oauth import issuer_serves
from kafkatop.backends.lab.properties import parse_properties
from kafkatop.backends.lab.security import LabSecurity
from kafkatop.backends.lab.spec import ClusterSpec, cluster_nodes
from kafkatop.backends.model.client_properties import translate_client_properties
from kafkatop.backends.protocol.oidc import TokenError, access_token
from tests.integration.test_supervisor import free_port_block


def test_the_issuer_serves_logs_and_stops_on_sigterm(tmp_path: Path) -> None:
    port = free_port_block(1)
    spec = ClusterSpec(mode="kraft", brokers=1, base_port=port - 300, security="sasl_oauthbearer")
    security = LabSecurity(tmp_path, "lab", spec.security, issuer_port=spec.first_issuer_port)
    security.ensure(cluster_nodes(spec, "kraft"))
    assert security.issuer is not None
    log = tmp_path / "issuer.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(security.issuer.command(), stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while not issuer_serves(port):
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)
        props = parse_properties(security.client_properties_path.read_text())
        client = dict(translate_client_properties(props).settings)
        token = access_token(client)
        assert token.count(".") == 2
        wrong = client | {"sasl.oauthbearer.client.secret": "not-the-secret"}
        with pytest.raises(TokenError, match="401 invalid_client"):
            access_token(wrong)
    finally:
        proc.terminate()
        code = proc.wait(10)
    assert code == 0
    text = log.read_text()
    assert f"OIDC issuer http://127.0.0.1:{port} serving" in text
    assert "token for client 'client'" in text and "refused client 'client'" in text
    assert text.rstrip().endswith("stopped")
    assert token not in text and not [p for p in security.passwords().values() if p in text]
