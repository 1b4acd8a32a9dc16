"""ServiceProcess.close() on a service that is going away by itself (a failed start ends the process): the
shutdown line meets a closed pipe, and close() must still stop the process group rather than raise."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from kafkatop.spark.service_process import ServiceProcess


def test_close_when_the_service_no_longer_reads_its_stdin_stops_it_without_raising(tmp_path: Path) -> None:
    # A real child standing in for the service: it closes its stdin (as an exiting service has) and lingers.
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\nexec 0<&-\nexec sleep 30\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    service = ServiceProcess(python=str(fake))
    service.start()
    pid = service.pid
    assert pid is not None
    service.close(timeout_s=2.0)
    assert service.state == "stopped"
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        pass
    else:  # a zombie not yet reaped would still answer; Popen.wait in close() reaps it
        raise AssertionError(f"the stand-in service {pid} is still running after close()")
