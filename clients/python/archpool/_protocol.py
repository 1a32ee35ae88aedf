"""The JSON-lines codec of ``archpool serve``'s client protocol (docs/service.md, service version 1).

Only this module knows how messages are spelled on the wire; it does no I/O.
"""

import json
from typing import Any, Dict, Mapping, Optional

from ._errors import ProtocolError, ServeError

__all__ = ["SERVICE_VERSION", "MAX_LINE_BYTES", "encode", "decode", "submit", "cancel", "status", "shutdown",
           "check_hello"]

#: The version of docs/service.md this client speaks.
SERVICE_VERSION = 1

#: The longest line either side may send, its ``\n`` included.
MAX_LINE_BYTES = 4 * 1024 * 1024

_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def encode(message: Mapping[str, Any]) -> bytes:
    """One message as one UTF-8 line.

    :raises ValueError: when the line would be longer than the protocol allows.
    """
    line = (_ENCODER.encode(message) + "\n").encode("utf-8")
    if len(line) > MAX_LINE_BYTES:
        raise ValueError(f"this {message.get('type', '')} message would be a {len(line)}-byte line, longer than the"
                         f" {MAX_LINE_BYTES} bytes archpool serve reads; pass large inputs as files (e.g. a"
                         " response file in argv) instead")
    return line


def decode(line: bytes) -> Dict[str, Any]:
    """One line from ``serve`` as a message (a JSON object with a string ``type``).

    :raises ProtocolError: for anything else.
    """
    try:
        message = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise ProtocolError(f"archpool serve sent a line that is not JSON ({e}): {_shown(line)}") from e
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise ProtocolError(f"archpool serve sent a line that is not a message (an object with a \"type\"):"
                            f" {_shown(line)}")
    return message


def submit(client_job_id: str, cwd: str, job: Mapping[str, Any]) -> Dict[str, Any]:
    return {"type": "submit", "clientJobId": client_job_id, "cwd": cwd, "job": job}


def cancel(client_job_id: str) -> Dict[str, Any]:
    return {"type": "cancel", "clientJobId": client_job_id}


def status(request_id: Optional[str]) -> Dict[str, Any]:
    message: Dict[str, Any] = {"type": "status"}
    if request_id is not None:
        message["requestId"] = request_id
    return message


def shutdown(cancel_running: bool) -> Dict[str, Any]:
    return {"type": "shutdown", "cancelRunning": cancel_running}


def check_hello(message: Mapping[str, Any]) -> None:
    """
    :raises ServeError: when ``serve`` refused the connection instead (an ``error``: ``too-many-clients``).
    :raises ProtocolError: when the first message is not a ``hello`` of a service version this client speaks.
    """
    if message.get("type") == "error":
        raise ServeError(f"archpool serve refused the connection ({message.get('code')}): {message.get('message')}")
    if message.get("type") != "hello":
        raise ProtocolError(f"archpool serve's first message is a {message.get('type')!r}, not a 'hello':"
                            f" {_shown(json.dumps(message).encode('utf-8'))}")
    service = message.get("service")
    if service != SERVICE_VERSION:
        raise ProtocolError(
            f"archpool serve speaks service version {service!r} (archpool {message.get('archpoolVersion', '?')}),"
            f" this client speaks version {SERVICE_VERSION}; use the Python client of the same archpool release"
            " (the one its distribution or platform wheel carries)")
    if not isinstance(message.get("target"), dict):
        raise ProtocolError("archpool serve's hello has no \"target\" object")


def _shown(line: bytes, limit: int = 200) -> str:
    text = line.decode("utf-8", errors="replace").rstrip("\n")
    return repr(text if len(text) <= limit else text[:limit] + f"… ({len(text)} characters)")
