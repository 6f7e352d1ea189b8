"""What scripts/tcp_pingpong.py and scripts/tcp_ring.py share: their
command line, and blocking TCP between emulated hosts, where each waits up
to 30 s for its peers, since the ranks that mpirun starts in their
namespaces come up at different times."""
import argparse
import socket
import sys
import time

WAIT_S = 30


def receive(sock, n, buf, who):
    """The next n bytes from sock into buf; a closed peer ends the program."""
    view = memoryview(buf)[:n]
    got = 0
    while got < n:
        k = sock.recv_into(view[got:])
        if k == 0:
            sys.exit(f"{who}: the peer closed the connection")
        got += k
    return view


def connect(host, port, who):
    """A blocking connection to host:port, retried while the peer starts."""
    deadline = time.monotonic() + WAIT_S
    while True:
        try:
            sock = socket.create_connection((host, port), timeout=1)
            sock.settimeout(None)
            return sock
        except OSError:
            if time.monotonic() > deadline:
                sys.exit(f"{who}: cannot connect to {host}:{port}")
            time.sleep(0.05)


def accept(host, port, count, who):
    """count blocking connections accepted on host:port."""
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((host, port))
    listener.listen(count)
    listener.settimeout(WAIT_S)
    accepted = []
    try:
        for _ in range(count):
            sock, _ = listener.accept()
            sock.settimeout(None)
            accepted.append(sock)
    except socket.timeout:
        sys.exit(f"{who}: {len(accepted)} of {count} peers connected to {host}:{port} within {WAIT_S} s")
    finally:
        listener.close()
    return accepted


def size_args(iters, warmup, ap=None):
    """The command line both take: --sizes B1,B2,... --iters --warmup --json,
    parsed by ap (a caller's parser with its own options) or a new one."""
    ap = ap or argparse.ArgumentParser()
    ap.add_argument("--sizes", required=True)
    ap.add_argument("--iters", type=int, default=iters)
    ap.add_argument("--warmup", type=int, default=warmup)
    ap.add_argument("--json")
    args = ap.parse_args()
    try:
        args.sizes = [int(s) for s in args.sizes.split(",")]
    except ValueError:
        ap.error(f"--sizes: whole numbers of bytes, comma-separated, got '{args.sizes}'")
    if min(args.sizes) < 1 or args.iters < 1 or args.warmup < 0:
        ap.error("--sizes from 1 byte, --iters from 1, --warmup from 0")
    return args
