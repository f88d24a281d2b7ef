"""moto's server on 127.0.0.1 and a port the OS picks, for test/support/moto/moto-server.ts.

Prints `listening <port>` once it serves, then runs until its standard input closes (the Node
process that started it ended it, or died) or it gets SIGTERM. The same server `moto_server`
runs (moto's ThreadedMotoServer: werkzeug, a thread per request), without the port race of
picking a free port first.
"""

import logging
import os
import sys

from moto.server import ThreadedMotoServer


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
