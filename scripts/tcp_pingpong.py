#!/usr/bin/env python3
"""A plain TCP ping-pong between two emulated hosts: the link itself, without MPI.

  tcp_pingpong.py --sizes 4096,8192,... --iters 10 --warmup 2 --json FILE

Started by scripts/bench-emulator.sh through scripts/emulate-links.sh run
(as the "binary" mpirun starts on 2 ranks, each in its own namespace): rank
1 (OMPI_COMM_WORLD_RANK) listens on its address, 10.213.0.2, and echoes
every message; rank 0 connects, sends each message whole (blocking sockets,
TCP_NODELAY), waits for the echo and writes the median and least one-way
time (round trip / 2) of every size to --json. Both sides block in the
kernel while they wait, so the time is the link's and the TCP stack's, not
a polling loop's.
"""
import json
import os
import socket
import statistics
import sys
import time

from tcp_links import accept, connect, receive, size_args

PORT = 5202


def main():
    args = size_args(iters=10, warmup=2)
    sizes = args.sizes
    rank = int(os.environ.get("OMPI_COMM_WORLD_RANK", "-1"))
    server = "10.213.0.2"
    buf = bytearray(max(sizes))
    if rank == 1:
        sock = accept(server, PORT, 1, "tcp_pingpong")[0]
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for m in sizes:
            for _ in range(args.iters + args.warmup):
                sock.sendall(receive(sock, m, buf, "tcp_pingpong"))
        return
    if rank != 0:
        sys.exit("tcp_pingpong: run on 2 ranks (OMPI_COMM_WORLD_RANK 0 and 1)")
    sock = connect(server, PORT, "tcp_pingpong")
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    times = []
    for m in sizes:
        data = bytes(m)
        one_way = []
        for i in range(args.iters + args.warmup):
            start = time.perf_counter()
            sock.sendall(data)
            receive(sock, m, buf, "tcp_pingpong")
            if i >= args.warmup:
                one_way.append((time.perf_counter() - start) / 2)
        times.append({"bytes": m, "one_way_s": {"median": statistics.median(one_way), "min": min(one_way),
                                                "max": max(one_way)}})
    record = {"what": "tcp ping-pong, blocking sockets, TCP_NODELAY", "iters": args.iters,
              "warmup": args.warmup, "pairs": [{"src": 0, "dst": 1, "times": times}]}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(record, f, indent=1)
    for t in times:
        print(f"{t['bytes']:>10} {t['one_way_s']['median'] * 1e6:12.1f} us")


if __name__ == "__main__":
    main()
