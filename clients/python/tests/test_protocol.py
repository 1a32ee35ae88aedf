"""What the client does with a serve it cannot talk to. The real serve cannot be made to speak another service
version or to write junk on its stdout, so these start a stand-in script in its place (the only stand-ins in the
suite); everything else runs against the real distribution."""

from pathlib import Path

import pytest

import archpool
from procs import wait_gone


def stand_in(tmp_path: Path, first_line: str) -> Path:
    """A "serve" that writes ``first_line``, records its pid, and runs until its stdin closes."""
    script = tmp_path / "archpool"
    script.write_text("#!/bin/sh\n"
                      f"echo $$ > '{tmp_path}/pid'\n"
                      f"printf '%s\\n' '{first_line}'\n"
                      "exec cat > /dev/null\n")
    script.chmod(0o755)
    return script


def test_a_serve_of_another_service_version_is_left_with_a_clear_error(tmp_path: Path) -> None:
    hello = ('{"type":"hello","service":2,"archpoolVersion":"9.0.0","pid":1,'
             '"target":{"platform":"cuda","archs":["90"],"source":"flag"}}')

    with pytest.raises(archpool.ProtocolError) as raised:
        archpool.Pool(archpool=str(stand_in(tmp_path, hello)), arch="90")

    assert "service version 2" in str(raised.value) and "archpool 9.0.0" in str(raised.value)
    assert "this client speaks version 1" in str(raised.value)
    pid = int((tmp_path / "pid").read_text())
    assert not wait_gone([pid], timeout=10), "the client did not disconnect (close the stand-in's stdin)"


def test_a_first_line_that_is_no_message_is_a_protocol_error(tmp_path: Path) -> None:
    with pytest.raises(archpool.ProtocolError, match="not JSON.*Picked up JAVA_TOOL_OPTIONS"):
        archpool.Pool(archpool=str(stand_in(tmp_path, "Picked up JAVA_TOOL_OPTIONS: -Xmx1g")), arch="90")
    assert not wait_gone([int((tmp_path / "pid").read_text())], timeout=10)
