#!/usr/bin/env python3
"""The simulated platform of scripts/simulate.sh: its parameter file (read by
the SimGrid plugin src/sim/platform.cpp), its host file (rank i on host i)
and the lines that describe it in the output.

    simulate_platform.py --out DIR --ranks N (--hw PRESET | --rate GBIT | --topology LEVELS) [options]

--topology takes fat-tree or switch, or an L-level topology (a name in
configs/topology/ or a TOML file, src/model/topology.h): level 0 is the
node (its link inside), level 1 the NIC of each group of ranks out of it
(oversubscription o_1: o_1 * g_0 NICs per node), and the levels above it
the fat tree's switch levels, each with o_l * P_(l-1) NICs' worth of links
out of a group of level l-1 (P the ranks of a group).

Writes DIR/platform.params, DIR/hosts and DIR/describe.txt (comment lines
for the output) and DIR/smpi.cfg (one --cfg=... per line for smpirun: the
network factors). Exit status 2 with one message on bad input.
"""
import argparse
import os
import sys
import tomllib


def die(msg):
    print(f"simulate.sh: {msg}", file=sys.stderr)
    sys.exit(2)


def preset_path(name, repo):
    if os.path.exists(name) or "/" in name or name.endswith(".toml"):
        if not os.path.exists(name):
            die(f"--hw {name}: no such file")
        return name
    for d in (os.environ.get("SHARDROOF_HARDWARE_DIR"), os.path.join(repo, "configs", "hardware")):
        if d and os.path.exists(os.path.join(d, name + ".toml")):
            return os.path.join(d, name + ".toml")
    known = sorted(f[:-5] for f in os.listdir(os.path.join(repo, "configs", "hardware")) if f.endswith(".toml"))
    die(f"--hw {name}: no such preset (presets: {', '.join(known)})")


def topology_path(name, repo):
    if os.path.exists(name) or "/" in name or name.endswith(".toml"):
        if not os.path.exists(name):
            die(f"--topology {name}: no such file")
        return name
    path = os.path.join(repo, "configs", "topology", name + ".toml")
    if os.path.exists(path):
        return path
    known = sorted(f[:-5] for f in os.listdir(os.path.join(repo, "configs", "topology")) if f.endswith(".toml"))
    die(f"--topology {name}: fat-tree, switch, or a topology (configs/topology: {', '.join(known)}) or its TOML file")


def load_levels(path, preset):
    """The topology's levels, innermost first, each {name, g, W, a, o} with
    W and a from the preset's link where the level names one (its own
    numbers win), as src/model/topology.cpp resolves them."""
    try:
        with open(path, "rb") as f:
            t = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        die(f"--topology {path}: {e}")
    levels = []
    for i, level in enumerate(t.get("levels", [])):
        link = {}
        if "link" in level:
            _, link = find_link(preset, level["link"], f"--topology {path} level {i}")
        W = level.get("bytes_per_s", link.get("bytes_per_s"))
        a = level.get("latency_s", link.get("latency_s", 0))
        g = level.get("group_size")
        o = level.get("oversubscription", 1.0)
        if not isinstance(g, int) or g < 1 or W is None or not W > 0 or not 0 < o <= 1:
            die(f"--topology {path}: level {i} needs a whole group_size, a link or bytes_per_s, and an "
                f"oversubscription in (0, 1]")
        levels.append({"name": level.get("name", level.get("link", f"level {i}")), "g": g, "W": W, "a": a, "o": o})
    if not levels:
        die(f"--topology {path}: no [[levels]]")
    return t, levels


def whole(x, what):
    if abs(x - round(x)) > 1e-9 * max(1.0, abs(x)) or round(x) < 1:
        die(what)
    return int(round(x))


def find_link(preset, name, what):
    links = preset.get("links", {})
    for key, link in links.items():
        if name == key or name in link.get("aliases", []):
            return key, link
    die(f"{what} {name}: preset {preset.get('name')} has no such link ({', '.join(links)})")


def default_inter_link(preset):
    """The slowest link other than the default one (as `predict` chooses it,
    src/model/hardware.h), or the default link where it is the only one."""
    links = preset.get("links", {})
    default = preset.get("default_link")
    others = [(l["bytes_per_s"], k) for k, l in links.items() if k != default]
    return min(others)[1] if others else default


def number(text, what):
    try:
        v = float(text)
    except ValueError:
        die(f"{what}: '{text}' is not a number")
    if not v > 0:
        die(f"{what}: must be positive, got {text}")
    return v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--repo", required=True)
    ap.add_argument("--ranks", type=int, required=True)
    ap.add_argument("--hw")
    ap.add_argument("--rate")
    ap.add_argument("--ranks-per-node", type=int)
    ap.add_argument("--nics-per-node", type=int)
    ap.add_argument("--topology")
    ap.add_argument("--leaf-nodes", type=int, default=16)
    ap.add_argument("--link-intra")
    ap.add_argument("--link-inter")
    ap.add_argument("--compute")
    ap.add_argument("--host-speed")
    ap.add_argument("--host-datatype", default="float")
    ap.add_argument("--calibration")
    a = ap.parse_args()

    levels = None
    level_topology = None
    if a.topology not in (None, "fat-tree", "switch"):
        if a.rate is not None:
            die("--topology with levels takes its links from a hardware preset, not --rate")
        for flag, value in (("--ranks-per-node", a.ranks_per_node), ("--nics-per-node", a.nics_per_node),
                            ("--link-intra", a.link_intra), ("--link-inter", a.link_inter)):
            if value is not None:
                die(f"{flag}: the topology's levels say it (level 0: the node; level 1: its NICs)")
        path = topology_path(a.topology, a.repo)
        with open(path, "rb") as f:
            try:
                hw_of_topology = tomllib.load(f).get("hardware")
            except tomllib.TOMLDecodeError as e:
                die(f"--topology {path}: {e}")
        a.hw = a.hw or hw_of_topology
        if a.hw is None:
            die(f"--topology {path}: no 'hardware' in it; give --hw PRESET (the chip)")
        level_topology = path
    if (a.hw is None) == (a.rate is None):
        die("give one platform: --hw PRESET or --rate GBIT")
    if a.ranks < 1:
        die(f"--ranks: at least 1, got {a.ranks}")
    params = {}
    props = {}
    describe = []
    cfg = []
    if a.hw is not None:
        path = preset_path(a.hw, a.repo)
        try:
            with open(path, "rb") as f:
                preset = tomllib.load(f)
        except (OSError, tomllib.TOMLDecodeError) as e:
            die(f"--hw {a.hw}: {e}")
        name = preset.get("name", a.hw)
        if level_topology is not None:
            topo, levels = load_levels(level_topology, preset)
            n = 1
            for level in levels:
                n *= level["g"]
            if n != a.ranks:
                die(f"--ranks {a.ranks}: the topology {a.topology} holds {n} ranks "
                    f"({' x '.join(str(l['g']) for l in levels)})")
            g = levels[0]["g"]
            if levels[0]["o"] != 1:
                die(f"--topology {level_topology}: level 0 (the node) with oversubscription {levels[0]['o']}: a "
                    f"simulated node gives each rank its own link")
            intra_name = levels[0]["name"]
            intra = {"bytes_per_s": levels[0]["W"], "latency_s": levels[0]["a"]}
            top = levels[1] if len(levels) > 1 else levels[0]
            inter_name = top["name"]
            inter = {"bytes_per_s": top["W"], "latency_s": top["a"]}
            nics = whole(top["o"] * g, f"--topology {level_topology}: level 1's oversubscription {top['o']} times the "
                         f"{g} ranks of a node is not a whole number of NICs") if len(levels) > 1 else g
            topology = "levels"
        else:
            g = a.ranks_per_node or 8
            intra_name, intra = find_link(preset, a.link_intra or preset.get("default_link"), "--link-intra")
            inter_name, inter = find_link(preset, a.link_inter or default_inter_link(preset), "--link-inter")
            nics = a.nics_per_node or g
            topology = a.topology or "fat-tree"
        compute = a.compute or "injected"
        params.update(intra_bytes_per_s=intra["bytes_per_s"], intra_latency_s=intra.get("latency_s", 0),
                      nic_bytes_per_s=inter["bytes_per_s"], nic_latency_s=inter.get("latency_s", 0))
        flops = preset.get("flops", {})
        memory = preset.get("memory", {}).get("bytes_per_s", 0)
        if a.host_datatype not in flops:
            die(f"--host-datatype {a.host_datatype}: preset {name} lists FLOP/s for {', '.join(flops)}")
        host_flops = flops[a.host_datatype]
        props["shardroof/preset"] = name
        for dt, f in flops.items():
            props[f"shardroof/flops/{dt}"] = f"{f:.6g}"
        props["shardroof/memory_bytes_per_s"] = f"{memory:.6g}"
        # A GPU's memory segments as MemoryOps' default (1 MiB), not as the
        # cache of the machine that simulates it.
        props["shardroof/segment_bytes"] = str(1 << 20)
        describe.append(
            f"# simulated platform: {a.ranks} ranks of preset {name} ({preset.get('description', '')}), nodes of {g} ranks; "
            f"inside a node {intra_name} {intra['bytes_per_s'] / 1e9:.4g} GB/s and {intra.get('latency_s', 0) * 1e6:.3g} us "
            f"per rank and direction; out of a node {inter_name} {inter['bytes_per_s'] / 1e9:.4g} GB/s and "
            f"{inter.get('latency_s', 0) * 1e6:.3g} us, {nics} NIC{'s' if nics != 1 else ''} per node")
        describe.append("# simulated network: SMPI's flow model with ideal links (smpi/bw-factor and lat-factor 1, "
                        "no TCP window, no cross traffic): the preset's W and latency exactly, shared where flows meet")
        cfg += ["--cfg=smpi/bw-factor:0:1", "--cfg=smpi/lat-factor:0:1", "--cfg=network/TCP-gamma:0",
                "--cfg=network/crosstraffic:0"]
        if compute == "injected":
            if not memory > 0:
                die(f"--compute injected: preset {name} gives no memory bandwidth ([memory] bytes_per_s)")
            describe.append(
                f"# simulated compute: injected from preset {name}: a GEMM takes max(2mnk/C, operand bytes/M) with C "
                f"per datatype ({', '.join(f'{k} {v:.4g}' for k, v in flops.items())} FLOP/s) and M = {memory:.4g} B/s "
                f"(nothing computed), reductions their bytes at M (copies free); the time this machine takes is not charged")
    else:
        gbit = number(a.rate, "--rate")
        g = a.ranks_per_node or 1
        nics = a.nics_per_node or 1
        topology = a.topology or "switch"
        compute = a.compute or "benchmarked"
        if compute == "injected":
            die("--compute injected needs --hw PRESET (the rates to inject come from a preset)")
        host_flops = None
        if not a.calibration or not os.path.exists(a.calibration):
            die(f"--calibration {a.calibration}: no such file (configs/simulation/calibration.toml)")
        with open(a.calibration, "rb") as f:
            cal = tomllib.load(f)
        link = cal.get("link", {})
        loop = cal.get("loopback", {})
        payload = link.get("payload_share", 1.0)
        params.update(nic_bytes_per_s=gbit * 1e9 / 8 * payload, nic_latency_s=link.get("latency_s", 0),
                      intra_bytes_per_s=loop.get("bytes_per_s", 0), intra_latency_s=loop.get("latency_s", 0))
        for key, value in cal.get("smpi", {}).items():
            cfg.append(f"--cfg={key}:{value}")
        describe.append(
            f"# simulated platform: {a.ranks} ranks on nodes of {g}, each node's one link at {gbit:g} Gbit/s (as "
            f"scripts/emulate-links.sh shapes it; payload {payload:g} of the rate, latency {params['nic_latency_s'] * 1e6:.3g} us)"
            + (f", ranks of a node over loopback at {params['intra_bytes_per_s'] / 1e9:.3g} GB/s, "
               f"{params['intra_latency_s'] * 1e6:.3g} us" if g > 1 else ""))
        describe.append(f"# simulated network: SMPI's flow model calibrated against the emulated links "
                        f"({os.path.relpath(a.calibration, a.repo)}: {', '.join(cfg) or 'no factors'})")
    if a.ranks % g != 0:
        die(f"--ranks-per-node {g} does not divide --ranks {a.ranks}")
    if g % nics != 0:
        die(f"--nics-per-node {nics} does not divide the {g} ranks of a node")
    nodes = a.ranks // g
    tree_down, tree_up = [], []
    if topology == "levels":
        # The fat tree's switch levels: levels 1 .. L-1. A group of level l-1
        # has o_l * P_(l-1) NICs' worth of links out of it; its top switches
        # (`count`) each get `up` of the node's link rate (nics NICs).
        below = g
        count = 1
        for i, level in enumerate(levels[1:], start=1):
            tree_down.append(level["g"])
            if i == 1:
                tree_up.append(1)
            else:
                if level["W"] != levels[1]["W"] or level["a"] != levels[1]["a"]:
                    die(f"--topology {level_topology}: level {i} ({level['name']}) has W {level['W']:g} and latency "
                        f"{level['a']:g}, level 1 W {levels[1]['W']:g} and {levels[1]['a']:g}: SimGrid's fat tree has "
                        f"one link rate and its levels above the NIC add no latency, so they must be the same")
                up = whole(level["o"] * below / (count * nics),
                           f"--topology {level_topology}: level {i} ({level['name']}): {level['o']:g} x {below} ranks "
                           f"is not a whole number of up-links of {nics} NICs each from {count} switch(es)")
                tree_up.append(up)
                count *= up
            below *= level["g"]
        if len(levels) == 1:
            tree_down, tree_up = [1], [1]
    elif topology not in ("fat-tree", "switch"):
        die(f"--topology {topology}: fat-tree or switch")
    if topology == "fat-tree" and nodes > a.leaf_nodes and nodes % a.leaf_nodes != 0:
        die(f"--leaf-nodes {a.leaf_nodes}: {nodes} nodes do not fill leaf switches of {a.leaf_nodes} nodes")
    if compute not in ("injected", "benchmarked"):
        die(f"--compute {compute}: injected or benchmarked")
    if topology == "levels":
        parts = []
        below = 1
        for i, level in enumerate(levels):
            out_links = f"{level['o'] * below:g} links out of each group of {below} ranks" if i > 0 else "a link per rank"
            parts.append(f"level {i} {level['name']}: groups of {level['g']}, W {level['W'] / 1e9:.4g} GB/s, "
                         f"{level['a'] * 1e6:.3g} us, oversubscription {level['o']:g} ({out_links})")
            below *= level["g"]
        describe.append(f"# simulated topology: {len(levels)} levels from {a.topology}: "
                        + "; ".join(parts))
        if len(levels) > 1:
            describe.append(f"# simulated fat tree: children per switch {','.join(map(str, tree_down))}, parents per "
                            f"element {','.join(map(str, tree_up))} (a node's link up carries its {nics} NICs; SimGrid's "
                            f"d-mod-k routing)")
    elif topology == "fat-tree" and nodes > a.leaf_nodes:
        describe.append(f"# simulated topology: fat tree of full bisection: {nodes // a.leaf_nodes} leaf switches of "
                        f"{a.leaf_nodes} nodes under {a.leaf_nodes} spine switches, each node's links up as fast as its "
                        f"NICs together, routed d-mod-k")
    else:
        describe.append(f"# simulated topology: the {nodes} nodes on one switch")
    if compute == "benchmarked":
        speed = number(a.host_speed, "--host-speed") if a.host_speed else None
        if host_flops is None:
            # A link rate: the ranks are this machine's processes, as emulated.
            host_flops = speed or 1e9
            speed = host_flops
        elif speed is None:
            die("--compute benchmarked with --hw: give --host-speed FLOPS, this machine's rate "
                "(e.g. from `shardroof peak`), which SMPI scales to the preset's")
        describe.append(f"# simulated compute: benchmarked: SMPI times each stretch of computation on this machine "
                        f"(its CPU time) and charges it x{speed / host_flops:.3g} "
                        f"(smpi/host-speed {speed:.4g} over the simulated host's {host_flops:.4g} FLOP/s)")
        cfg.append(f"--cfg=smpi/host-speed:{speed:.6g}f")
    else:
        cfg.append("--cfg=smpi/simulate-computation:no")
    props["shardroof/compute"] = compute
    params.update(nodes=nodes, ranks_per_node=g, topology=topology, fat_tree_leaf_nodes=a.leaf_nodes,
                  nics_per_node=nics, host_flops=host_flops)
    if topology == "levels":
        params.update(tree_down=",".join(map(str, tree_down)), tree_up=",".join(map(str, tree_up)))

    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "platform.params"), "w") as f:
        f.write("# written by scripts/simulate_platform.py\n")
        for k, v in params.items():
            f.write(f"{k} = {v}\n")
        for k, v in props.items():
            f.write(f"prop.{k} = {v}\n")
    with open(os.path.join(a.out, "hosts"), "w") as f:
        for r in range(a.ranks):
            f.write(f"node{r // g}-rank{r % g}\n")
    with open(os.path.join(a.out, "describe.txt"), "w") as f:
        f.write("\n".join(describe) + "\n")
    with open(os.path.join(a.out, "smpi.cfg"), "w") as f:
        f.write("\n".join(cfg) + "\n")


if __name__ == "__main__":
    main()
