#!/usr/bin/env python3
"""The ring's traffic over plain TCP: the emulated links without MPI.

  tcp_ring.py --sizes 1048576,4194304 --iters 3 --warmup 1 [--ranks-per-node K] [--spin] [--json FILE]

Started through scripts/emulate-links.sh run (as the "binary" mpirun starts,
each rank in its own namespace at 10.213.0.<rank + 1>, or K consecutive
ranks in their node's at 10.213.0.<rank / K + 1> with emulate-links.sh
--ranks-per-node K and the same K here), the way scripts/tcp_pingpong.py
is. Rank r opens one connection to rank r + 1 (mod N); the record names
the transfers that cross a node's link. For each size, each transfer
r -> r + 1 is timed alone (the other ranks idle), then all N at once, as
in one step of a ring collective and in `shardroof link --pattern ring`. Rank 0 starts every iteration with a "go"
line to every rank over a control connection; a receiver's time is from
its "go" to its last byte. Sender and receiver block in the kernel (a
thread per direction, blocking sockets), so no rank spins: what the
transfers lose against their wire time is the links' and the TCP stack's,
not that of processes polling on the same CPUs. With --spin each rank
also runs a process that yields in a loop for as long as the rank runs, as
an Open MPI rank waiting with mpi_yield_when_idle does: the CPUs are then
as busy as under MPI, and the links' packet path gets what MPI's ranks
leave it. Rank 0 also reads the machine's CPU time (/proc/stat) over the
all-at-once iterations.
"""
import argparse
import json
import os
import re
import socket
import statistics
import sys
import threading
import time

from tcp_links import accept, connect, receive, size_args

DATA_PORT = 5210
CONTROL_PORT = 5209  # below the data ports, 5210 + rank
WHO = "tcp_ring"


def address(rank, per=1):
    """Rank's namespace's address: its node's, with per ranks a node."""
    return f"10.213.0.{rank // per + 1}"


def transfer(src, n):
    """The name of the transfer src -> src + 1 (mod n), as the record keys it."""
    return f"{src}->{(src + 1) % n}"


def cpu_jiffies():
    with open("/proc/stat") as f:
        fields = f.readline().split()[1:]
    names = ["user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"]
    return {k: int(v) for k, v in zip(names, fields)}


def payload_share(emulator_text):
    """TCP's payload share of a frame (IPv4 and TCP headers with timestamps:
    66 B of it with the Ethernet header), the frame as emulate-links.sh's
    shaper line in emulator_text names it (1514 B where it names none)."""
    m = re.search(r"frames? of (\d+) B", emulator_text)
    frame = int(m.group(1)) if m else 1514
    return (frame - 66) / frame


def worst_across_nodes(record, payload_bytes_per_s):
    """The transfer that crosses a node's link and is slowest all at once
    against its wire time (its bytes at payload_bytes_per_s): (ratio, name)."""
    return max(((e["all"][pair] * payload_bytes_per_s / e["bytes"], pair)
                for e in record["sizes"] for pair in record["across_nodes"]), default=(0.0, ""))


def cpu_text(share):
    """The machine's CPU shares as one line; None: too short to read."""
    if share is None:
        return "not read (shorter than a clock tick)"
    return ", ".join(f"{k} {v:.2f}" for k, v in share.items() if v >= 0.005)


def spin_while_alive():
    """A child process that yields in a loop until this process ends."""
    parent = os.getpid()
    if os.fork() == 0:
        while os.getppid() == parent:
            for _ in range(1000):
                os.sched_yield()
        os._exit(0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ranks-per-node", type=int, default=1)
    ap.add_argument("--spin", action="store_true")
    args = size_args(iters=3, warmup=1, ap=ap)
    if args.ranks_per_node < 1:
        ap.error("--ranks-per-node from 1")
    sizes = args.sizes
    per = args.ranks_per_node
    rank = int(os.environ["OMPI_COMM_WORLD_RANK"])
    n = int(os.environ["OMPI_COMM_WORLD_SIZE"])
    if n < 2 or n % per:
        sys.exit(f"tcp_ring: run on at least 2 ranks, a multiple of --ranks-per-node {per}")
    if args.spin:
        spin_while_alive()
    right, left = (rank + 1) % n, (rank - 1) % n
    buf = bytearray(max(sizes))
    data = bytes(max(sizes))

    # Connections: data to the right (accepted from the left), control to rank 0.
    accepted = []
    # Ranks of one node share its address: each listens on a port of its own.
    accept_thread = threading.Thread(
        target=lambda: accepted.extend(accept(address(rank, per), DATA_PORT + rank, 1, WHO)))
    accept_thread.start()
    if rank == 0:
        control = accept(address(0), CONTROL_PORT, n - 1, WHO)
    else:
        control = connect(address(0), CONTROL_PORT, WHO)
    to_right = connect(address(right, per), DATA_PORT + right, WHO)
    accept_thread.join()
    if not accepted:
        sys.exit(f"{WHO}: rank {left} did not connect")
    from_left = accepted[0]
    for sock in (to_right, from_left):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    if rank == 0:
        # Peers report in the order they accepted; learn who is who.
        peers, readers = {}, {}
        for sock in control:
            f = sock.makefile("r")
            r = int(f.readline())
            peers[r], readers[r] = sock, f
    else:
        control.sendall(f"{rank}\n".encode())
        reader = control.makefile("r")

    def one_iteration(m, senders):
        """Every rank in `senders` sends m bytes right; returns each receiver's time (rank 0)."""
        if rank == 0:
            line = f"{m} {','.join(map(str, senders))}\n".encode()
            for sock in peers.values():
                sock.sendall(line)
        else:
            words = reader.readline().split()
            m, senders = int(words[0]), [int(s) for s in words[1].split(",")]
        start = time.perf_counter()
        sender = None
        if rank in senders:
            sender = threading.Thread(target=to_right.sendall, args=(memoryview(data)[:m],))
            sender.start()
        elapsed = -1.0
        if left in senders:
            receive(from_left, m, buf, WHO)
            elapsed = time.perf_counter() - start
        if sender:
            sender.join()
        if rank != 0:
            control.sendall(f"{elapsed!r}\n".encode())
            return None
        times = {0: elapsed}
        for r, f in readers.items():
            times[r] = float(f.readline())
        return {transfer((r - 1) % n, n): t for r, t in times.items() if t >= 0}

    record = {"what": "tcp ring transfers, blocking sockets, TCP_NODELAY, a thread per direction",
              "ranks": n, "ranks_per_node": per, "spin": args.spin, "iters": args.iters, "warmup": args.warmup,
              "across_nodes": [transfer(r, n) for r in range(n) if r // per != ((r + 1) % n) // per],
              "sizes": []}
    for m in sizes:
        entry = {"bytes": m, "alone": {}, "all": {}}
        for k in range(n):
            samples = []
            for i in range(args.warmup + args.iters):
                t = one_iteration(m, [k])
                if rank == 0 and i >= args.warmup:
                    samples.append(t[transfer(k, n)])
            if rank == 0:
                entry["alone"][transfer(k, n)] = statistics.median(samples)
        samples = {}
        for i in range(args.warmup + args.iters):
            if i == args.warmup and rank == 0:
                cpu_before, wall = cpu_jiffies(), time.perf_counter()
            t = one_iteration(m, list(range(n)))
            if rank == 0 and i >= args.warmup:
                for pair, v in t.items():
                    samples.setdefault(pair, []).append(v)
        if rank == 0:
            cpu_after = cpu_jiffies()
            entry["all"] = {pair: statistics.median(v) for pair, v in samples.items()}
            spent = {k: cpu_after[k] - cpu_before[k] for k in cpu_after}
            total = sum(spent.values())
            # None where the iterations took less than a clock tick of /proc/stat.
            entry["all_cpu_share"] = {k: v / total for k, v in spent.items()} if total else None
            entry["all_wall_s"] = time.perf_counter() - wall
            record["sizes"].append(entry)
    if rank == 0:
        if args.json:
            with open(args.json, "w") as f:
                json.dump(record, f, indent=1)
        for e in record["sizes"]:
            shares = cpu_text(e["all_cpu_share"])
            print(f"# {e['bytes']} B: median of {args.iters}; CPU over the all-at-once iterations: {shares}")
            print(f"{'transfer':>10} {'alone ms':>10} {'all ms':>10} {'all/alone':>10}")
            for pair, alone in e["alone"].items():
                together = e["all"].get(pair, float('nan'))
                print(f"{pair:>10} {alone * 1e3:10.1f} {together * 1e3:10.1f} {together / alone:10.2f}")


if __name__ == "__main__":
    main()
