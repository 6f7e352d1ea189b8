#!/usr/bin/env python3
"""The device check's summary reads the records shardroof really writes.

Records of the same commands on the CPU backend (peak, predict, sweep and
coll on 1 and 2 ranks) and a GPU test log are laid out as the device check
leaves them; scripts/device_summary.py must report every number from them,
algbw and time (no busbw) on one rank, and make predict's flags from peak.

    check_device_summary.py SUMMARY_PY SHARDROOF GPU_TESTS WORK MPIEXEC [MPIEXEC_FLAGS...]
"""
import json
import os
import re
import shutil
import subprocess
import sys


def run(cmd, ok=(0,)):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if p.returncode not in ok:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {p.returncode}:\n{p.stdout}\n{p.stderr}")
    return p.stdout


def expect(cond, what, text=""):
    if not cond:
        sys.exit(f"FAIL: {what}\n{text}")


def main(argv):
    summary_py, shardroof, gpu_tests, work = argv[1:5]
    mpiexec = argv[5:]
    shutil.rmtree(work, ignore_errors=True)
    r = os.path.join(work, "results")
    os.makedirs(r)
    one = [shardroof]
    two = mpiexec[:1] + ["-np", "2"] + mpiexec[1:] + [shardroof]
    run(one + ["peak", "--datatypes", "float,bfloat16", "--size", "64", "--k", "16,32", "--memory-bytes", "1M",
               "--reduce-elements", "1000", "--warmup", "1", "--iters", "2", "--json", f"{r}/peak.json"])
    flags = run([sys.executable, summary_py, "--predict-flags", f"{r}/peak.json"]).split()
    peak = json.load(open(f"{r}/peak.json"))["nodes"][0]
    bf16 = [g for g in peak["gemm"] if g["datatype"] == "bfloat16"][0]
    expect(flags[:2] == ["--flops", f"{bf16['flops_per_s']:.6g}"] and "--memory-bw" in flags and
           "--reduce-rate" in flags, "predict flags from peak", " ".join(flags))
    run(one + ["predict", "--hw", "h200", "--link", "nvlink", "--ranks", "8", "--datatype", "bfloat16", "--B", "8192",
               "--F", "8192", "--json", f"{r}/predict.json"] + flags)
    sweep = ["sweep", "--B", "64", "--F", "64", "--D", "16:1024:x4", "--warmup", "1", "--iters", "2"]
    run(one + sweep + ["--json", f"{r}/sweep-1rank.json"])
    run(two + sweep + ["--json", f"{r}/sweep-2ranks.json"])
    coll = ["coll", "-b", "1K", "-e", "8K", "-f", "8", "-w", "1", "-n", "2", "--impl", "ring,native", "--rounds", "2",
            "--min-span-s", "0"]
    run(one + coll + ["--json", f"{r}/coll-nccl-1rank.json"])
    run(two + coll + ["--json", f"{r}/coll-mpi-2ranks.json"])
    with open(f"{r}/gpu-tests-1rank.log", "w") as f:
        # Colour, as under a launcher that gives it a terminal; 77: cases skipped (no GPU).
        f.write(run([gpu_tests, "--gtest_color=yes"], ok=(0, 77)))
    with open(f"{r}/sweep-1rank-tf32.log", "w") as f:
        f.write("starting\nshardroof: error: --backend cuda: no CUDA GPU is visible on node7\n")
    with open(f"{r}/gpus.txt", "w") as f:
        f.write("GPU 0: NVIDIA H200 (UUID: GPU-0)\n")
    with open(f"{r}/steps.tsv", "w") as f:
        for name in ("preflight", "peak", "predict", "sweep-1rank", "sweep-2ranks", "coll-nccl-1rank",
                     "coll-mpi-2ranks", "gpu-tests-1rank"):
            f.write(f"{name}\tok\t1\t60\n")
        f.write("coll-nccl-2ranks\tTIMEOUT after 40s\t40\t40\n")
        f.write("sweep-1rank-tf32\tFAILED rc=2\t1\t60\n")
        f.write("overlap-1rank\tSKIPPED (time budget spent)\t0\t40\n")
    text = run([sys.executable, summary_py, r])

    expect(text.startswith("== shardroof device check: GPU 0: NVIDIA H200"), "title", text)
    for g in peak["gemm"]:
        t = g["flops_per_s"]
        row = f"{g['datatype']:<9} {t / 1e12:8.1f} {t / 989e12:7.1%} {t / 788e12:7.1%}"
        expect(row in text, f"GEMM row for {g['datatype']}: {row!r}", text)
    expect(f"triad {peak['memory']['triad_bytes_per_s'] / 1e9:.0f} GB/s" in text, "memory roof", text)
    pred = json.load(open(f"{r}/predict.json"))
    expect(f"D* = {pred['D_star']:,.0f}" in text, "predict's D*", text)
    s2 = json.load(open(f"{r}/sweep-2ranks.json"))
    expect(f"C_peak {s2['ceilings']['C_flops_per_s'] / 1e12:.0f} TFLOP/s" in text, "sweep C_peak", text)
    expect("D*_empirical" in text, "the 2-rank sweep's crossover", text)
    one_rank = text[text.index("over NCCL, 1 rank"):text.index("over MPI, 2 ranks")]
    expect("busbw is 0 by definition" in one_rank and "algbw" in one_rank and " us " in one_rank and
           "busbw  " not in one_rank, "one rank: time and algbw, no busbw", one_rank)
    c2 = json.load(open(f"{r}/coll-mpi-2ranks.json"))
    biggest = max(x["bytes"] for x in c2["results"])
    for x in c2["results"]:
        if x["bytes"] == biggest and not x["in_place"]:
            expect(f"busbw {x['busbw_GBps']:7.1f} GB/s" in text, f"2-rank busbw of {x['impl']}", text)
    expect("coll all_reduce over NCCL, 2 ranks sharing the GPU: no record" in text, "a timed-out step", text)
    expect("overlap-1rank" in text.split("\n\n")[0] and "overlap-1rank:" not in text, "a skipped step", text)
    expect(re.search(r"gpu-tests-1rank: [1-9]\d* passed, [1-9]\d* skipped, 0 failed", text), "GPU test counts", text)
    expect("\n    shardroof: error: --backend cuda: no CUDA GPU is visible on node7\n" in text,
           "a failed step's first error under its row", text)
    print(text)
    print("ok: the summary reports the records")


if __name__ == "__main__":
    main(sys.argv)
