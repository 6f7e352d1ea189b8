#!/usr/bin/env python3
"""The summary of scripts/device-check.sh, from the records it leaves.

    device_summary.py RESULTS_DIR            the summary table (stdout)
    device_summary.py --predict-flags PEAK   `predict` flags (--flops, --memory-bw,
                                             --reduce-rate) from a `peak` record's
                                             bfloat16 GEMM, triad and reduction

RESULTS_DIR holds steps.tsv (name, outcome, seconds, limit per step), gpus.txt,
the steps' logs and the JSON records of peak, predict, sweep and coll. A
record that is missing (a step skipped, failed or timed out) is said so, never
filled in.
"""
import json
import os
import re
import sys

# References for the GEMM rates. The H200's dense bfloat16 (and half) rate
# from NVIDIA's datasheet, and what PyTorch reached on an H200 of the kind
# this check is written for (8192^3 bfloat16, random data, the mean of ten
# products after three warm-ups).
H200_DENSE_BF16 = 989e12
PYTORCH_H200_BF16 = 788e12


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def fmt_d(v):
    return "none in range" if v is None else f"{v:,.0f}"


def peak_node(doc):
    nodes = (doc or {}).get("nodes") or []
    return nodes[0] if nodes else None


def predict_flags(peak_path):
    node = peak_node(load(peak_path))
    if not node:
        return None
    flags = []
    for g in node.get("gemm", []):
        if g.get("datatype") == "bfloat16" and g.get("flops_per_s"):
            flags += ["--flops", f"{g['flops_per_s']:.6g}"]
    if not flags:
        return None
    triad = (node.get("memory") or {}).get("triad_bytes_per_s")
    if triad:
        flags += ["--memory-bw", f"{triad:.6g}"]
    for r in node.get("reduction", []):
        if r.get("datatype") == "bfloat16" and r.get("s_per_element"):
            flags += ["--reduce-rate", f"{1 / r['s_per_element']:.6g}"]
    return " ".join(flags)


def steps_section(out, results):
    rows = [line.split("\t") for line in read(os.path.join(results, "steps.tsv")).splitlines() if line]
    out.append(f"{'step':<20} {'outcome':<36} {'seconds':>7} {'limit':>6}")
    for r in rows:
        r += [""] * (4 - len(r))
        out.append(f"{r[0]:<20} {r[1]:<36} {r[2]:>7} {r[3]:>6}")
        if r[1].startswith(("FAILED", "TIMEOUT")):
            # Why, in a line: the first error the step's log names.
            log = re.sub(r"\x1b\[[0-9;]*m", "", read(os.path.join(results, f"{r[0]}.log")))
            why = [line.strip() for line in log.splitlines()
                   if re.search(r"error|Error|FAILED|MISSING|OUTSIDE|TOO OLD|what\(\)", line)]
            if why:
                out.append(f"    {why[0][:160]}")
    return {r[0]: r[1] for r in rows}


def gemm_section(out, results):
    doc = load(os.path.join(results, "peak.json"))
    node = peak_node(doc)
    if not node or not node.get("gemm"):
        out.append("peak: no record")
        return
    s = doc.get("settings", {})
    out.append(f"cuBLAS GEMM {s.get('size')}^3 per GPU: median of {s.get('iters')} timed calls after "
               f"{s.get('warmup')} warm-ups (CUDA events)")
    gpu = (doc.get("hardware") or {}).get("gpu") or {}
    if gpu:
        clock = gpu.get("clock_hz")
        line = (f"GPU: {gpu.get('name')}, compute capability {gpu.get('compute_capability')}, "
                f"{gpu.get('sm_count')} SMs, SM clock {gpu.get('max_clock_hz', 0) / 1e9:.2f} GHz at most")
        if clock:
            line += (f", {clock / 1e9:.2f} GHz right after the GEMMs (rank {gpu.get('clock_rank')}"
                     f"{'; held by: ' + gpu['clock_limits'] if gpu.get('clock_limits') else ''})")
        if gpu.get("pcie_gen"):
            line += (f"; PCIe Gen{gpu['pcie_gen']} x{gpu.get('pcie_width')} "
                     f"(best Gen{gpu.get('pcie_max_gen')} x{gpu.get('pcie_max_width')})")
        if gpu.get("nvml"):
            line += f"; {gpu['nvml']}"
        out.append(line)
    out.append(f"  {'datatype':<9} {'TFLOP/s':>8} {'of 989':>7} {'of 788':>7} {'x hw':>6}  arithmetic")
    for g in node["gemm"]:
        t = g["flops_per_s"]
        hw = g.get("hardware") or {}
        share = f"{hw['share']:6.2f}" if hw.get("share") else f"{'-':>6}"
        out.append(f"  {g['datatype']:<9} {t / 1e12:8.1f} {t / H200_DENSE_BF16:7.1%} {t / PYTORCH_H200_BF16:7.1%}"
                   f" {share}  {g.get('arithmetic', '')}")
    for g in node["gemm"]:
        hw = g.get("hardware") or {}
        if hw:
            out.append(f"  x hw, {g['datatype']}: {hw.get('name')} = {hw.get('flops_per_s_per_rank', 0) / 1e12:.0f} "
                       f"TFLOP/s ({hw.get('formula')})")
    out.append("  (989: the H200's dense bfloat16/half rate, datasheet; 788: PyTorch's bfloat16 8192^3 "
               "on an H200; float here is FP32 without TF32, datasheet 67)")
    for g in node["gemm"]:
        thin = " ".join(f"k={t['k']}:{t['flops_per_s'] / 1e12:.0f}" for t in g.get("thin", []))
        if thin:
            out.append(f"  {g['datatype']:<9} thin k, m = n = {g['m']} (TFLOP/s): {thin}")
    m = node.get("memory") or {}
    if m:
        out.append(f"memory roof M ({m.get('space', '?')}, {m.get('bytes_per_array', 0) / 2**20:.0f} MiB per array):"
                   f" copy {m.get('copy_bytes_per_s', 0) / 1e9:.0f} GB/s, triad {m.get('triad_bytes_per_s', 0) / 1e9:.0f}"
                   " GB/s (bytes read + written)")
    for r in node.get("reduction", []):
        g = r.get("s_per_element", 0)
        es = {"bfloat16": 2, "half": 2, "float": 4, "double": 8}.get(r.get("datatype"), 4)
        rate = f"{3 * es / g / 1e9:.0f} GB/s moved" if g else "?"
        out.append(f"reduction g {r['datatype']:<9} {g * 1e12:8.3f} ps/element on {r.get('elements')} elements ({rate})")


def predict_section(out, results):
    doc = load(os.path.join(results, "predict.json"))
    if not doc:
        out.append("predict (8 GPUs on the H200 preset's NVLink, this GPU's C, M, g): no record")
        return
    c = doc.get("ceilings", {})
    out.append(f"predict, 8 x this GPU on the H200 preset's NVLink (C {c.get('flops_per_s', 0) / 1e12:.0f} TFLOP/s, "
               f"M {c.get('memory_bytes_per_s', 0) / 1e9:.0f} GB/s, W {c.get('link_bytes_per_s', 0) / 1e9:.0f} GB/s), "
               f"bfloat16 B = F = 8192: D* = {fmt_d(doc.get('D_star'))} "
               f"(bandwidth term {fmt_d(doc.get('D_star_bandwidth'))}; 90% without overlap at "
               f"{fmt_d(doc.get('D_90_no_overlap'))})")


def sweep_section(out, results, name, what):
    doc = load(os.path.join(results, f"{name}.json"))
    if not doc:
        out.append(f"{what}: no record")
        return
    c = doc.get("ceilings", {})
    g = c.get("C_peak_gemm", {})
    s = doc.get("settings", {})
    pts = " ".join(f"D={p['D']}:{p.get('flops_per_s', 0) / 1e12:.0f}" for p in doc.get("points", []))
    out.append(f"{what} ({s.get('algorithm')}, {s.get('datatype')}, B = {s.get('B')}, F = {s.get('F')}):")
    out.append(f"  C_peak {c.get('C_flops_per_s', 0) / 1e12:.0f} TFLOP/s ({g.get('m')}x{g.get('n')}x{g.get('k')}, "
               f"{g.get('time_s', {}).get('median', 0) * 1e3:.1f} ms per call); M {c.get('M_bytes_per_s', 0) / 1e9:.0f}"
               f" GB/s; GEMM TFLOP/s per rank: {pts}")
    x = doc.get("crossover", {})
    if doc.get("ranks", 1) > 1:
        out.append(f"  W {c.get('W_bytes_per_s', 0) / 1e9:.1f} GB/s, alpha {c.get('alpha_s', 0) * 1e6:.1f} us; "
                   f"D*_empirical {fmt_d(x.get('D_empirical'))}, D*_book(C per point) {fmt_d(x.get('D_predicted'))}, "
                   f"D*(C_peak) {fmt_d(x.get('D_peak'))}, D*(C_peak, M) {fmt_d(x.get('D_roofs'))}")
    if doc.get("summary"):
        out.append("  " + " ".join(str(doc["summary"]).split()))


def coll_section(out, results, name, what):
    doc = load(os.path.join(results, f"{name}.json"))
    if not doc:
        out.append(f"{what}: no record")
        return
    ranks = doc.get("ranks", 1)
    best = {}
    for r in doc.get("results", []):
        if r.get("in_place"):
            continue
        key = r.get("impl")
        if key not in best or r.get("bytes", 0) > best[key].get("bytes", 0):
            best[key] = r
    if ranks == 1:
        out.append(f"{what}, largest size, out of place (one rank: time and algbw; busbw is 0 by definition):")
    else:
        out.append(f"{what}, largest size, out of place:")
    for impl, r in sorted(best.items()):
        line = (f"  {impl:<22} {r.get('bytes', 0) / 2**20:6.0f} MiB  {r.get('time_us', {}).get('median', 0):10.1f} us"
                f"  algbw {r.get('algbw_GBps', 0):7.1f} GB/s")
        if ranks > 1:
            line += f"  busbw {r.get('busbw_GBps', 0):7.1f} GB/s"
        line += f"  wrong {r.get('wrong')}"
        out.append(line)


TEST_STEPS = {"gpu-tests-1rank", "gpu-tests-2ranks", "overlap-1rank", "overlap-2ranks"}


def tests_section(out, results, ran):
    for name in sorted(TEST_STEPS & ran):
        # (Colour codes out: the launcher may give the ranks a terminal.)
        log = re.sub(r"\x1b\[[0-9;]*m", "", read(os.path.join(results, f"{name}.log")))
        counts = []
        for word in ("PASSED", "SKIPPED", "FAILED"):
            m = re.search(rf"^\[\s*{word}\s*\] (\d+) tests?", log, re.M)
            counts.append(f"{m.group(1) if m else 0} {word.lower()}")
        failed = sorted(set(re.findall(r"^\[\s*FAILED\s*\] (\S+\.\S+)", log, re.M)))
        out.append(f"{name}: {', '.join(counts)}" + (f" ({', '.join(failed)})" if failed else ""))


def summary(results):
    out = []
    gpus = read(os.path.join(results, "gpus.txt")).strip().splitlines()
    out.append(f"== shardroof device check: {gpus[0] if gpus else 'no GPU listed by nvidia-smi'} ==")
    pre = read(os.path.join(results, "preflight.log"))
    for line in pre.splitlines():
        if line.startswith(("shardroof ", "GPU:")):
            out.append(line)
    steps = steps_section(out, results)
    # A section for each step that ran (its record may still be missing:
    # a step that failed or timed out); none for steps never started.
    ran = {name for name, outcome in steps.items() if not outcome.startswith("SKIPPED")}
    sections = [
        ("peak", lambda: gemm_section(out, results)),
        ("predict", lambda: predict_section(out, results)),
        ("sweep-1rank", lambda: sweep_section(out, results, "sweep-1rank", "sweep, 1 rank over NCCL")),
        ("sweep-2ranks", lambda: sweep_section(out, results, "sweep-2ranks", "sweep, 2 ranks sharing the GPU over MPI")),
        ("sweep-overlap",
         lambda: sweep_section(out, results, "sweep-overlap", "sweep --overlap auto, 2 ranks sharing the GPU over MPI")),
        ("coll-nccl-1rank", lambda: coll_section(out, results, "coll-nccl-1rank", "coll all_reduce over NCCL, 1 rank")),
        ("coll-mpi-2ranks",
         lambda: coll_section(out, results, "coll-mpi-2ranks", "coll all_reduce over MPI, 2 ranks sharing the GPU")),
        ("coll-nccl-2ranks",
         lambda: coll_section(out, results, "coll-nccl-2ranks", "coll all_reduce over NCCL, 2 ranks sharing the GPU")),
    ]
    if ran & ({name for name, _ in sections} | TEST_STEPS):
        out.append("")
    for name, section in sections:
        if name in ran:
            section()
    tests_section(out, results, ran)
    return "\n".join(out)


def main(argv):
    if len(argv) == 3 and argv[1] == "--predict-flags":
        flags = predict_flags(argv[2])
        if not flags:
            return 1
        print(flags)
        return 0
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    print(summary(argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
