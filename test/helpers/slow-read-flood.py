# The slow-read flood of test/helpers/flood.ts (slowReadFlood), in a process of its own: TLS connections
# from many loopback addresses, each sending `pipelined` GETs of one path at once and then one more a
# second, never reading an answer. Python, because its sockets take SO_RCVBUF before connecting: a
# receive buffer of 4 KiB keeps the client's window small, as a slow reader's (slowhttptest -X) is, so
# the answers stay in serve and not in the kernel's buffers (Node's client offers no such option).
# A connection serve closes is noticed at the next write, and opened again after `reopenMs`.
# Arguments: a JSON of the options; prints "open opened closed" on each line of stdin.
import json
import os
import socket
import ssl
import sys
import threading
import time

options = json.loads(sys.argv[1])
context = ssl.create_default_context()
context.check_hostname = False
context.verify_mode = ssl.CERT_NONE
request = f"GET {options['path']} HTTP/1.1\r\nHost: flood\r\n\r\n".encode()
lock = threading.Lock()
counts = {"open": 0, "opened": 0, "closed": 0}


def slot(address):
    while True:
        counted = False
        tls = None
        try:
            raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, 536)
            raw.bind((address, 0))
            raw.settimeout(10)
            raw.connect(("127.0.0.1", options["port"]))
            tls = context.wrap_socket(raw)
            with lock:
                counts["open"] += 1
                counts["opened"] += 1
            counted = True
            tls.sendall(request * options["pipelined"])
            while True:
                time.sleep(1)
                tls.sendall(request)
        except (OSError, ValueError):
            pass
        finally:
            if tls is not None:
                tls.close()
            if counted:
                with lock:
                    counts["open"] -= 1
                    counts["closed"] += 1
        time.sleep(options.get("reopenMs", 1000) / 1000)


for address in options["addresses"]:
    for _ in range(options["perAddress"]):
        threading.Thread(target=slot, args=(address,), daemon=True).start()
for _ in sys.stdin:
    with lock:
        print(f"{counts['open']} {counts['opened']} {counts['closed']}", flush=True)
os._exit(0)
