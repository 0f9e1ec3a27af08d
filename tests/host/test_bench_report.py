#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host unit tests for scripts/bench-report.py, on canned guest logs."""
import importlib.util
import json
import os
import shutil
import sys
import tempfile
import unittest

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts")
sys.path.insert(0, SCRIPTS)
spec = importlib.util.spec_from_file_location("bench_report",
                                              os.path.join(SCRIPTS, "bench-report.py"))
report = importlib.util.module_from_spec(spec)
spec.loader.exec_module(report)

CALLS = 1000


def log(records, done=True, steps_exit=0, extra=""):
    lines = ["[    0.000000] Linux version 6.12.117",
             "fpm: guest up, 2 cpus, kernel 6.12.117+, mode bench",
             'bench: {"phase":"info","kernel":"6.12.117+","cpus":2,"fprobe_multi":true}']
    lines += ["bench: " + json.dumps(r) for r in records]
    lines.append(f"fpm: bench percall exit {steps_exit}")
    lines.append(extra)
    if done:
        lines.append("fpm: done")
    return "\n".join(lines) + "\n"


def percall(costs, runs=3, jitter=0):
    """costs: row -> instructions per call (total, with the loop)"""
    out = []
    for row, cost in costs.items():
        for run in range(1, runs + 1):
            ns = cost * CALLS + (jitter * run if row != "none" else 0)
            out.append({"phase": "percall", "row": row, "run": run, "calls": CALLS,
                        "ns": ns})
    return out


BASE = {"none": 12, "kprobe.multi": 249, "kretprobe.multi": 519,
        "kprobe.session": 637, "fexit": 156, "kretprobe": 604}
PATCHED = {"none": 12, "kprobe.multi": 217, "kretprobe.multi": 825, "kretprobe": 590,
           "kprobe.session": 991, "fprobe.multi entry": 210,
           "fprobe.multi session": 959, "fexit": 156}
# fpm_bench fptrace's rows, patched kernel only: count() within the limit,
# hist(latency) over it
FPTRACE = {"fptrace count()": 221, "hand-written count()": 218,
           "fptrace hist(latency)": 1212, "hand-written hist(latency)": 958}


def unsupported(rows):
    """the records of rows that fpm_bench could not attach"""
    return [{"phase": "percall", "row": row, "unsupported": True} for row in rows]


# mainline's trampoline peers of our links (7.3 on), and the rows of the
# series, which the 7.3 base does not have yet
PEERS = ("fsession", "fexit.multi", "fsession.multi")
FPROBE_ROWS = ("fprobe.multi entry", "fprobe.multi exit", "fprobe.multi exit +args",
               "fprobe.multi session", "fprobe.multi session +args",
               "fprobe.multi session +data", "fprobe.multi session +args +data")


def startup(compiled_ms, attached_ms):
    return {"phase": "fptrace_startup", "functions": 1000,
            "compiled_ns": compiled_ms * 1000000, "attached_ns": attached_ms * 1000000,
            "binary_bytes": 3340248}


def attach(kind, n, all_funcs, attach_ms, detach_ms):
    return {"phase": "attach", "kind": kind, "n": n, "all": all_funcs,
            "attach_ns": attach_ms * 1000000, "detach_ns": detach_ms * 1000000}


def memory(kind, slab, vmalloc):
    return {"phase": "memory", "kind": kind, "functions": 1000, "tasks": 141,
            "extra_tasks": 100, "cpus": 2, "slab_kb": slab, "vmalloc_kb": vmalloc,
            "percpu_kb": 0}


class BenchReportTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        os.mkdir(os.path.join(self.dir, "logs"))

    def tearDown(self):
        shutil.rmtree(self.dir)

    def write(self, name, text):
        with open(os.path.join(self.dir, "logs", name), "w") as f:
            f.write(text)

    def full_set(self, base_attach_done=True):
        self.write("base-icount-a.log",
                   log(percall(BASE) + [attach("kretprobe.multi", 21888, True, 500, 190)],
                       done=base_attach_done))
        self.write("base-icount-b.log", log(percall(BASE)))
        self.write("base-plain.log", log(percall(BASE)))
        self.write("base-memory-kretprobe.multi.log",
                   log([memory("kretprobe.multi", 64, 324)]))
        self.write("patched-icount-a.log",
                   log(percall(PATCHED, jitter=2) + percall(FPTRACE) +
                       [startup(1303, 1363), attach("fprobe.multi", 21888, True, 800, 300)]))
        self.write("patched-icount-b.log", log(percall(PATCHED) + percall(FPTRACE) +
                                               [startup(1302, 1362)]))
        self.write("patched-plain.log", log(percall(PATCHED) + percall(FPTRACE) +
                                            [startup(2500, 2600)]))
        with open(os.path.join(self.dir, "fptrace-binary"), "w") as f:
            f.write("3340248 1473960\n")
        self.write("patched-memory-fprobe.session.log",
                   log([memory("fprobe.session", 964, 0)]))

    def summary(self):
        return report.summarize(report.load(self.dir))

    def target(self, res, prefix):
        return next(t for t in res["targets"] if t["target"].startswith(prefix))

    def test_instructions_above_the_loop(self):
        self.full_set()
        res = self.summary()
        self.assertEqual(res["percall"]["kprobe.multi"]["base"]["icount-a"]["above"], 237)
        # runs of 217002, 217004 and 217006 ns: the median run counts
        self.assertAlmostEqual(res["percall"]["kprobe.multi"]["patched"]["icount-a"]["above"],
                               205.004)
        self.assertEqual(res["percall"]["none"]["patched"]["icount-a"]["calls_per_s"],
                         1e9 / 12)

    def test_ratios_against_the_same_kind_and_fexit(self):
        self.full_set()
        res = self.summary()
        r = res["ratios"]["fprobe.multi entry"]
        self.assertEqual(r["base_row"], "kprobe.multi")
        self.assertAlmostEqual(r["vs_base_same_kind"], 198.004 / 237)
        self.assertAlmostEqual(r["vs_fexit"], 198.004 / 144.004)
        self.assertEqual(res["ratios"]["fprobe.multi session"]["base_row"], "kprobe.session")

    def test_targets(self):
        self.full_set()
        res = self.summary()
        entry = self.target(res, "fprobe.multi entry")
        self.assertTrue(entry["met"])
        session = self.target(res, "fprobe.multi session")
        self.assertAlmostEqual(session["ratio"], 947.004 / 507)
        self.assertFalse(session["met"])
        kmulti = self.target(res, "kprobe.multi vs")
        self.assertTrue(kmulti["met"])
        attach_all = self.target(res, "fprobe.multi attach-all")
        self.assertEqual(attach_all["ratio"], 800 / 500)
        self.assertFalse(attach_all["met"])
        mem = self.target(res, "fprobe.session memory")
        self.assertEqual((mem["value"], mem["reference"]), (964, 388))
        self.assertFalse(mem["met"])
        # the limits of the exit-path work
        limits = {t["target"].split(" (")[0]: t["limit"] for t in res["targets"]}
        self.assertEqual(limits["kretprobe.multi vs base kretprobe.multi"], 1.0)
        self.assertEqual(limits["kprobe.session vs base kprobe.session"], 1.0)
        self.assertEqual(limits["fprobe.multi exit vs base kretprobe.multi"], 0.8)
        self.assertEqual(limits["fprobe.multi session vs base kretprobe.multi"], 1.0)
        self.assertEqual(limits["kprobe.multi vs base kprobe.multi"], 0.9)
        self.assertEqual(limits["stretch: fprobe.multi exit vs fexit"], 2.0)
        # no kretprobe.multi attach-all on the patched kernel: not met
        kattach = self.target(res, "kretprobe.multi attach-all")
        self.assertIsNone(kattach["ratio"])
        self.assertFalse(kattach["met"])

    def test_classic_kretprobe_targets(self):
        """Issue 13: per call against the base row, memory against the base pools."""
        self.full_set()
        self.write("base-memory-kretprobe.log", log([memory("kretprobe", 4400, 80)]))
        self.write("patched-memory-kretprobe.log", log([memory("kretprobe", 4120, 80)]))
        res = self.summary()
        mem = self.target(res, "1,000 kretprobes memory")
        self.assertEqual((mem["value"], mem["reference"], mem["limit"]), (4200, 4480, 1.0))
        self.assertTrue(mem["met"])
        per_call = self.target(res, "kretprobe vs base kretprobe")
        self.assertEqual(per_call["reference"], 592)
        self.assertAlmostEqual(per_call["value"], 578.004)
        self.assertEqual(per_call["limit"], 1.0)
        self.assertTrue(per_call["met"])

    def test_memory_is_the_median_guest(self):
        self.full_set()
        # three fresh guests of one kind: the median by total counts, not the last
        os.remove(os.path.join(self.dir, "logs", "patched-memory-fprobe.session.log"))
        for i, slab in ((1, 204), (2, 144), (3, 140)):
            self.write(f"patched-memory-fprobe.session-{i}.log",
                       log([memory("fprobe.session", slab, 4)]))
        res = self.summary()
        mem = self.target(res, "fprobe.session memory")
        self.assertEqual((mem["value"], mem["reference"]), (148, 388))
        self.assertTrue(mem["met"])
        table = report.render(res)
        self.assertIn("| patched | fprobe.session | 141 | 144 | 4 | 0 | 148 | 144, 148, 208 |",
                      table)

    def test_fptrace_against_hand_written(self):
        self.full_set()
        res = self.summary()
        self.assertEqual([f["what"] for f in res["fptrace"]], ["count()", "hist(latency)"])
        count, hist = res["fptrace"]
        self.assertEqual((count["fptrace"], count["hand_written"]), (209, 206))
        self.assertAlmostEqual(count["ratio"], 209 / 206)
        self.assertAlmostEqual(hist["ratio"], 1200 / 946)
        t = self.target(res, "fptrace count()")
        self.assertEqual(t["target"],
                         "fptrace count() vs hand-written count() (instr/call)")
        self.assertEqual(t["limit"], 1.2)
        self.assertTrue(t["met"])
        t = self.target(res, "fptrace hist(latency)")
        self.assertEqual(t["limit"], 1.2)
        self.assertFalse(t["met"])
        text = report.render(res)
        self.assertIn("| count() | 209 | 206 | 1.01x |\n", text)
        self.assertIn("| hist(latency) | 1200 | 946 | 1.27x |\n", text)
        self.assertIn("- fptrace count() vs hand-written count() (instr/call): "
                      "209 / 206 = 1.01x, limit 1.2x: met\n", text)
        self.assertIn("- fptrace hist(latency) vs hand-written hist(latency) (instr/call): "
                      "1200 / 946 = 1.27x, limit 1.2x: MISSED\n", text)
        # no base kernel row of the kind to compare with
        line = next(x for x in text.splitlines() if x.startswith("| fptrace count() |"))
        self.assertTrue(line.startswith("| fptrace count() | n/a | 209 | 4.52 | — |"), line)

    def test_fptrace_startup_and_size(self):
        self.full_set()
        res = self.summary()
        st = res["kernels"]["patched"]["fptrace_startup"]
        self.assertEqual(sorted(st), ["icount-a", "icount-b", "plain"])
        self.assertEqual(res["kernels"]["base"]["fptrace_startup"], {})
        self.assertEqual(res["fptrace_binary"], {"bytes": 3340248, "stripped_bytes": 1473960})
        text = report.render(res)
        self.assertIn("fptrace start-up on 1,000 functions", text)
        self.assertIn("| icount-a | 1303.0 | 1363.0 |\n", text)
        self.assertIn("| plain | 2500.0 | 2600.0 |\n", text)
        self.assertIn("fptrace binary (static): 3,340,248 bytes, 1,473,960 stripped\n", text)

    def test_fptrace_rows_missing(self):
        # a run without the fptrace step: its targets are not met, no table
        self.full_set()
        self.write("patched-icount-a.log",
                   log(percall(PATCHED) + [attach("fprobe.multi", 21888, True, 800, 300)]))
        for boot in ("icount-b", "plain"):
            self.write(f"patched-{boot}.log", log(percall(PATCHED)))
        os.unlink(os.path.join(self.dir, "fptrace-binary"))
        res = self.summary()
        t = self.target(res, "fptrace count()")
        self.assertIsNone(t["ratio"])
        self.assertFalse(t["met"])
        text = report.render(res)
        self.assertNotIn("fptrace against hand-written", text)
        self.assertNotIn("fptrace binary", text)

    def test_debug_flavour(self):
        # bench.sh -f debug: two icount boots per kernel, per-call rows only
        with open(os.path.join(self.dir, "flavour"), "w") as f:
            f.write("debug\n")
        for k, costs in (("base", BASE), ("patched", PATCHED)):
            self.write(f"{k}-icount-a.log", log(percall(costs)))
            self.write(f"{k}-icount-b.log", log(percall(costs)))
        res = self.summary()
        self.assertEqual(res["flavour"], "debug")
        self.assertEqual([t["target"] for t in res["targets"]],
                         ["debug: kretprobe.multi vs base kretprobe.multi (instr/call)"])
        self.assertAlmostEqual(res["targets"][0]["ratio"], 813 / 507)
        self.assertEqual(res["targets"][0]["limit"], 1.1)
        self.assertFalse(res["targets"][0]["met"])
        text = report.render(res)
        self.assertIn("median of the runs, debug kernels)", text)
        self.assertNotIn("Attach and detach", text)
        self.assertNotIn("Memory of one link", text)
        self.assertIn("limit 1.1x: MISSED", text)

    def test_agreement_of_the_two_icount_runs(self):
        self.full_set()
        res = self.summary()
        worst = max(res["agreement"], key=lambda a: a["diff"])
        # run a is 4 ns per 1000 calls slower on the median, run b exact
        self.assertEqual(worst["kernel"], "patched")
        self.assertEqual(worst["row"], "fexit")
        self.assertAlmostEqual(worst["diff"], 0.004 / 156.004)
        self.assertIn("agree within 0.00%", report.render(res))
        self.assertNotIn("none", [a["row"] for a in res["agreement"]])
        self.assertEqual([a["abs"] for a in res["loop_agreement"]], [0, 0])
        self.assertIn("the bare loop within 0.00 instructions per call", report.render(res))

    def test_a_kernel_that_died_is_reported(self):
        self.full_set(base_attach_done=False)
        text = report.render(self.summary())
        self.assertIn("- base icount-a: the guest did not finish (crash or timeout)", text)

    def test_a_failed_bench_step_is_reported(self):
        self.full_set()
        self.write("patched-icount-b.log", log(percall(PATCHED), steps_exit=1))
        text = report.render(self.summary())
        self.assertIn("- patched: icount-b: fpm_bench percall exited with 1", text)

    def test_peer_rows_on_7_3(self):
        """On 7.3 both kernels measure the peers; neither has fprobe.multi."""
        base = dict(BASE, fsession=180, **{"fexit.multi": 118, "fsession.multi": 186})
        patched = dict(PATCHED, fsession=182, **{"fexit.multi": 118, "fsession.multi": 182})
        for row in FPROBE_ROWS:
            patched.pop(row, None)
        for k, costs in (("base", base), ("patched", patched)):
            for boot in ("icount-a", "icount-b", "plain"):
                self.write(f"{k}-{boot}.log", log(percall(costs) + unsupported(FPROBE_ROWS)))
        res = self.summary()
        self.assertEqual(res["percall"]["fsession"]["patched"]["icount-a"]["above"], 170)
        self.assertEqual(res["ratios"]["fexit.multi"]["base_row"], "fexit.multi")
        text = report.render(res)
        lines = text.splitlines()
        self.assertIn("| fsession | 168 | 170 | 5.49 | 1.01x fsession | 1.18x | 0.00% "
                      "| 5.56 | 5.49 |", lines)
        self.assertIn("| fexit.multi | 106 | 106 | 8.47 | 1.00x fexit.multi | 0.74x "
                      "| 0.00% | 8.47 | 8.47 |", lines)
        self.assertIn("| fsession.multi | 174 | 170 | 5.49 | 0.98x fsession.multi | 1.18x "
                      "| 0.00% | 5.38 | 5.49 |", lines)
        # every row fpm_bench printed, in its -o order: the peers last
        rows = [x.split(" | ")[0][2:] for x in text.split("\n\n")[0].splitlines()[3:]]
        self.assertEqual(rows[-4:], ["fexit", "fsession", "fexit.multi", "fsession.multi"])
        self.assertIn("| fprobe.multi entry | n/a | n/a | n/a | n/a | n/a | n/a | n/a "
                      "| n/a |", lines)
        self.assertIn("- fprobe.multi exit vs base kretprobe.multi (instr/call): "
                      "n/a / 507 = n/a, limit 0.8x: MISSED", lines)

    def test_peer_rows_on_6_12(self):
        """On 6.12 neither kernel nor its libbpf has the peers: all n/a."""
        self.full_set()
        for name in os.listdir(os.path.join(self.dir, "logs")):
            if "icount" in name or "plain" in name:
                with open(os.path.join(self.dir, "logs", name), "a") as f:
                    f.write(log(unsupported(PEERS)))
        res = self.summary()
        self.assertEqual(res["percall"]["fsession.multi"]["base"]["icount-a"],
                         {"runs": [], "ns_per_call": None, "spread": None, "above": None,
                          "calls_per_s": None})
        self.assertEqual(res["ratios"]["fexit.multi"],
                         {"vs_base_same_kind": None, "base_row": "fexit.multi",
                          "vs_fexit": None})
        lines = report.render(res).splitlines()
        for row in PEERS:
            self.assertIn(f"| {row} | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a |", lines)
        # and the rows measured before are as they were
        self.assertIn("| fexit | 144 | 144 | 6.41 | 1.00x fexit | 1.00x | 0.00% "
                      "| 6.41 | 6.41 |", lines)

    def test_mainline_targets(self):
        """A base other than 6.12 (mainline 7.3) gets issue 35's targets."""
        with open(os.path.join(self.dir, "base"), "w") as f:
            f.write("7.3.4-1~bpo13+1\n")
        for k, costs in (("base", BASE), ("patched", PATCHED)):
            for boot in ("icount-a", "icount-b"):
                self.write(f"{k}-{boot}.log", log(percall(costs) + [
                    attach("kretprobe.multi", 1000, False, 90, 8 if k == "base" else 6),
                    attach("kretprobe.multi", 20290, True, 440 if k == "base" else 400,
                           270)]))
            m = dict(memory("kretprobe.multi", 756 if k == "base" else 60, 2048),
                     forked_slab_kb=2000, forked_vmalloc_kb=1944 if k == "base" else 1600,
                     forked_percpu_kb=0)
            self.write(f"{k}-memory-kretprobe.multi.log", log([m]))
        lines = report.render(self.summary()).splitlines()
        want = [
            "- kretprobe.multi vs mainline (instr/call): 813 / 507 = 1.60x, "
            "limit 0.5x: MISSED",
            "- kprobe.session vs mainline (instr/call): 979 / 625 = 1.57x, "
            "limit 0.55x: MISSED",
            "- kprobe.multi vs mainline (instr/call): 205 / 237 = 0.86x, limit 0.7x: MISSED",
            "- classic kretprobe vs mainline (instr/call): 578 / 592 = 0.98x, "
            "limit 1.0x: met",
            "- fprobe.multi exit vs this kernel's fexit (instr/call): n/a / 144 = n/a, "
            "limit 3.0x: MISSED",
            "- kretprobe.multi attach-all vs mainline (guest ns): 400000000 / 440000000 = "
            "0.91x, limit 1.0x: met",
            "- kretprobe.multi detach of 1,000 functions vs mainline (guest ns): "
            "6000000 / 8000000 = 0.75x, limit 1.0x: met",
            "- kretprobe.multi memory, 1,000 functions, 100 tasks, forks included, "
            "vs mainline (kB): 5708 / 6748 = 0.85x, limit 0.5x: MISSED",
            "- moonshot: fprobe.multi exit vs this kernel's fexit (instr/call): "
            "n/a / 144 = n/a, limit 2.0x: MISSED",
        ]
        start = lines.index("Targets") + 1
        self.assertEqual(lines[start:start + len(want)], want)

    def test_rows_the_base_kernel_lacks(self):
        self.full_set()
        text = report.render(self.summary())
        line = next(x for x in text.splitlines() if x.startswith("| fprobe.multi entry |"))
        self.assertTrue(line.startswith("| fprobe.multi entry | n/a | 198 |"), line)


if __name__ == "__main__":
    unittest.main()
