"""moto's server on 127.0.0.1 and a port the OS picks, for test/support/moto/moto-server.ts.

Prints `listening <port>` once it serves, then runs until its standard input closes (the Node
process that started it ended it, or died) or it gets SIGTERM. The same server `moto_server`
runs (moto's ThreadedMotoServer: werkzeug, a thread per request), without the port race of
picking a free port first.

Two gaps of moto 5.2.5's S3 against AWS S3 are closed here, each found by `npm run check:sink`
losing records:
- CompleteMultipartUpload ignores `If-Match` (moto checks only `If-None-Match: *` there), so a
  multipart upload under a stale ETag overwrote the object. AWS refuses it with 412
  PreconditionFailed (404 NoSuchKey when the key has no object), and so does this server.
- A conditional write is check-then-act across threads: moto reads the current object, then
  builds and stores the new one, and sets its metadata after storing it. Two writers holding the
  same ETag could both pass the check (seen twice in 580 invocations of check:sink's S3 sink,
  logged with a probe at the store). AWS applies each request atomically, so here one lock
  makes each object request (GET, HEAD, PUT, POST, DELETE on a key) atomic with respect to the
  others. It serialises requests, never sequences of them: the S3 sink's own client runs as it
  would against AWS.
"""

import logging
import os
import sys
import threading
from typing import Any

from moto.s3.exceptions import MissingKey, PreconditionFailed
from moto.s3.responses import S3Response
from moto.server import ThreadedMotoServer

_object_request = threading.RLock()
_moto_key_response = S3Response._key_response
_moto_key_response_post = S3Response._key_response_post


def _atomic_key_response(self: S3Response, request: Any, full_url: str) -> Any:
    """One object request at a time: its preconditions, its write and its metadata together."""
    with _object_request:
        return _moto_key_response(self, request, full_url)


def _key_response_post(
    self: S3Response,
    request: Any,
    body: bytes,
    bucket_name: str,
    query: dict[str, Any],
    key_name: str,
) -> Any:
    """CompleteMultipartUpload evaluates `If-Match` as PutObject does (before moto's own checks)."""
    upload_id = (query.get("uploadId") or [None])[0]
    if_match = self.headers.get("If-Match")
    if upload_id is not None and if_match:
        existing = self.backend.get_object(bucket_name, key_name)
        if existing is None:
            raise MissingKey(key=key_name)
        # Completing the same upload again is answered as before (moto: idempotent).
        repeated = existing.multipart is not None and existing.multipart.id == upload_id
        if not repeated and if_match.replace('"', "") != existing.etag.replace('"', ""):
            raise PreconditionFailed("If-Match")
    return _moto_key_response_post(self, request, body, bucket_name, query, key_name)


S3Response._key_response = _atomic_key_response  # type: ignore[method-assign]
S3Response._key_response_post = _key_response_post  # type: ignore[method-assign]


def main() -> None:
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    server = ThreadedMotoServer("127.0.0.1", 0, verbose=False)
    server.start()
    _, port = server.get_host_and_port()
    os.environ["MOTO_PORT"] = str(port)
    print(f"listening {port}", flush=True)
    try:
        sys.stdin.read()
    finally:
        server.stop()


if __name__ == "__main__":
    main()
