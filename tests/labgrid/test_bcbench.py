"""BcbenchDriver (contrib/labgrid/bcbench_labgrid.py) through labgrid's
pytest plugin: pytest --lg-env tests/labgrid/env.yaml, run by
tests/integration/labgrid.sh, which starts the instrument emulators and
sets the LG_* variables env.yaml reads."""
import fcntl
import glob
import json
import os
import subprocess

import pytest

# env.yaml's imports loaded the module (and registered its classes) when
# the plugin read the environment; this is that module, not a second copy.
import bcbench_labgrid as bl
from labgrid.binding import BindingState


@pytest.fixture(scope="session")
def sim(target):
    drv = target.get_driver("BcbenchDriver")
    assert drv.state is BindingState.active
    return drv


@pytest.fixture(scope="session")
def pty(env):
    return env.get_target("ptybench").get_driver("BcbenchDriver")


def conf_of(res):
    with open(res.conf, encoding="utf-8") as f:
        return dict(line.split(" = ", 1) for line in f.read().splitlines() if " = " in line)


# First: the emulators started just before pytest wait the shortest.
def test_pty_bench_run(pty):
    res = pty.run("tests/data/scenarios/follow-load-step.scn")
    assert res.exit_code == 0 and res.cause == "ok", res.stderr
    assert res.state == "completed" and os.path.isfile(res.report)
    conf = conf_of(res)
    # the role named by the resource (load) and the one mapped (supply: psu)
    assert conf["load"] == "scpi:" + os.environ["LG_LOAD_PTY"] + "@115200"
    assert conf["supply"] == "scpi:" + os.environ["LG_SUPPLY_PTY"] + "@115200"
    assert conf["supply_mode"] == "follow" and "fixture" not in conf
    # a datadir the attribute gives is written
    assert conf["datadir"] == os.environ["LG_DATADIR"]
    with open(res.report, encoding="utf-8") as f:
        rep = json.load(f)
    roles = {i["role"] for i in rep["bench"]["instruments"]}
    assert {"load", "supply"} <= roles, rep["bench"]
    assert rep["bench"]["backend"] == "real"
    # the emulated load saw the scenario's 800 mA step
    with open(os.environ["LG_LOAD_LOG"], encoding="utf-8") as f:
        assert any(line.startswith(":SOUR:CURR:LEV 0.8") for line in f)


def test_sim_bench_run(sim):
    res = sim.run("scripts/scenarios/dcp.scn", args=["--charger", "dcp-1a"])
    assert res.exit_code == 0 and res.cause == "ok"
    assert res.judges == "device" and res.verdict == "compliant"
    assert res.verdicts == {"device": "compliant", "port": "not-demonstrated"}
    assert res.state == "completed"
    assert res.reports == [res.report] and os.path.isfile(res.report)
    assert os.path.isfile(os.path.join(res.out, "report.html"))
    # no fixture resource, no instruments, no datadir attribute: the
    # simulated bench's conf, its data found beside the bcbench binary
    conf = conf_of(res)
    assert not {"fixture", "load", "supply", "console", "capture", "datadir"} & set(conf), conf
    # the place's one conf, where a user's state goes
    assert res.conf == os.path.join(os.environ["XDG_STATE_HOME"], "bcbench-labgrid", "main.conf")
    assert sim.run("scripts/scenarios/dcp.scn", args=["--charger", "dcp-1a"]).conf == res.conf


def test_sim_bench_rule_failure_is_a_result(sim):
    res = sim.run("scripts/scenarios/dcp.scn", args=["--firmware", os.path.join(sim.fwdir, "dcd_dbnc_short.so")])
    assert res.exit_code == 1 and res.cause == "rule-failed"
    assert res.verdict == "not-compliant" and res.verdicts["device"] == "not-compliant"
    with open(res.report, encoding="utf-8") as f:
        failed = [r["id"] for r in json.load(f)["results"] if r["verdict"] == "fail"]
    assert "bc12.dcd.debounce" in failed


def test_sim_bench_suite(sim):
    res = sim.suite("tests/labgrid/labgrid.suite")
    assert res.exit_code == 0 and res.cause == "ok" and os.path.isfile(res.suite)
    got = {e["id"]: (e["outcome"], e["verdicts"]["device"]) for e in res.entries}
    assert got == {"dcp/reference": ("pass", "compliant"),
                   "dcp/dcd_dbnc_short": ("xfail", "not-compliant")}
    assert len(res.reports) == 2 and all(os.path.isfile(p) for p in res.reports)


def test_bad_input_raises(sim):
    with pytest.raises(bl.BcbenchBadInput) as exc:
        sim.run("tests/data/scenarios/bad-step.scn")
    assert exc.value.result.exit_code == 2 and exc.value.result.cause == "bad-input"
    assert exc.value.result.report is None
    # the message carries bcbench's own, naming the file and line
    assert "bad-step.scn:4:1" in str(exc.value)
    assert not isinstance(exc.value, bl.BcbenchBenchFault)


def test_pty_bench_gone_is_a_bench_fault(env):
    drv = env.get_target("gonebench").get_driver("BcbenchDriver")
    with pytest.raises(bl.BcbenchBenchFault) as exc:
        drv.run("tests/data/scenarios/short.scn", wait=0)
    res = exc.value.result
    assert res.retryable and res.exit_code == 5 and res.cause == "bench-fault"
    assert os.environ["LG_SCRATCH"] + "/no-tty" in str(exc.value)


def test_fixture_bench_conf(env, tmp_path):
    drv = env.get_target("labbench").get_driver("BcbenchDriver", activate=False)
    assert drv.load is None and drv.supply is None
    conf = dict(drv.conf_lines())
    assert conf["fixture"] == "ftdi:0403:6014:FT4ZB1"
    assert conf["fixture_file"] == "fixtures/bcbench-fixture-b.json"
    assert conf["console"] == "/dev/ttyACM0@115200"
    assert conf["capture"] == "sigrok:fx2lafw"
    assert conf["capture_rate"] == "100kHz"
    assert not {"load", "supply"} & set(conf)
    # no datadir attribute: none written, though the working directory (the
    # checkout) holds profiles/
    assert os.path.isdir("profiles") and "datadir" not in conf
    # bcbench itself reads the written file: `devices` parses bench.conf
    # first, so a key it does not know would be exit 2, not a missing device
    path = drv.write_conf(str(tmp_path / "bench.conf"))
    got = subprocess.run([drv.tool, "devices", "--conf", path], capture_output=True, text=True)
    assert path == str(tmp_path / "bench.conf") and drv.conf_path() == os.path.join(
        os.environ["LG_SCRATCH"], "state", "labbench.conf")
    assert got.returncode != 2, got.stderr


def test_causes_old_and_new_table():
    # bcbench before the shared table: 3 was a bench fault (or an abort)
    assert bl.cause_of(3, None, table=False) == "bench-fault"
    # with it, 3 is the device's doing and 5 the bench's
    assert bl.cause_of(3, None, table=True) == "device-broke-run"
    assert bl.cause_of(5, None, table=True) == "bench-fault"
    assert bl.cause_of(143, None) == "interrupted"
    # with the table the code says it, not a record left in the directory
    assert bl.cause_of(5, "ok", table=True) == "bench-fault"
    assert bl.cause_of(1, "rule-failed") == "rule-failed"


# A firmware whose init refuses: bcbench exits 3 before it writes a record.
REFUSING_FW = r'''
#include "bcfw.h"
static int refuse_init(void *ctx, const struct bcfw_hal *hal, const struct bcfw_decl *decl)
{
	(void)ctx; (void)hal; (void)decl;
	return -1;
}
static void refuse_wake(void *ctx, uint32_t events) { (void)ctx; (void)events; }
static const struct bcfw_firmware fw = { BCFW_ABI_VERSION, "refuse", "test", 0, refuse_init, refuse_wake };
__attribute__((visibility("default"))) const struct bcfw_firmware *bcfw_entry(void) { return &fw; }
'''


def test_firmware_refusing_to_start_is_the_devices(sim, tmp_path):
    src = tmp_path / "refuse.c"
    src.write_text(REFUSING_FW)
    so = str(tmp_path / "refuse.so")
    cc = subprocess.run([os.environ.get("CC") or "cc", "-shared", "-fPIC", "-Ibench/firmware",
                         "-o", so, str(src)], capture_output=True, text=True)
    assert cc.returncode == 0, cc.stderr
    res = sim.run("scripts/scenarios/dcp.scn", args=["--charger", "dcp-1a", "--firmware", so])
    assert res.exit_code == 3 and res.report is None, res.stderr
    assert res.cause == "device-broke-run" and not res.retryable
    assert "refused to start" in res.stderr


def test_exit_table_asked_of_the_binary(sim, tmp_path):
    assert bl.has_exit_table(sim.tool)
    old = tmp_path / "old-bcbench"
    old.write_text("#!/bin/sh\necho 'Exit codes: 0 ok, 1 a rule failed, 2 bad input, 3 bench fault'\n")
    old.chmod(0o755)
    assert not bl.has_exit_table(str(old))


def test_runs_on_a_place_meet_at_its_lock(env):
    drv = env.get_target("lockbench").get_driver("BcbenchDriver")
    locks = os.path.join(os.environ["LG_SCRATCH"], "locks")
    os.makedirs(locks, exist_ok=True)
    first = drv.run("tests/data/scenarios/short.scn")
    assert first.exit_code == 0, first.stderr
    assert first.conf == os.path.join(os.environ["LG_SCRATCH"], "state", "lockbench.conf")
    (lock,) = glob.glob(os.path.join(locks, "bcbench-*.lock"))
    # another run holds the place: the next one meets it, and with wait 0
    # gives up at once (a bench fault)
    with open(lock, "r+") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(bl.BcbenchBenchFault) as exc:
            drv.run("tests/data/scenarios/short.scn")
    res = exc.value.result
    assert res.exit_code == 5 and res.cause == "bench-fault" and res.conf == first.conf
    assert lock in str(exc.value)


def test_reused_out_takes_no_stale_record(env, sim, tmp_path):
    out = str(tmp_path / "reused")
    done = sim.run("scripts/scenarios/dcp.scn", out=out, args=["--charger", "dcp-1a"])
    assert done.exit_code == 0 and os.path.isfile(os.path.join(out, "report.json"))
    # a run that exits 5 before writing anything, into the same directory
    gone = env.get_target("gonebench").get_driver("BcbenchDriver")
    with pytest.raises(bl.BcbenchBenchFault) as exc:
        gone.run("tests/data/scenarios/short.scn", out=out)
    res = exc.value.result
    assert res.exit_code == 5 and res.cause == "bench-fault"
    assert res.report is None and res.verdict is None
    assert not os.path.exists(os.path.join(out, "report.json"))


def test_fixture_ids_checked(env):
    with pytest.raises(ValueError, match="four hex digits"):
        bl.BcbenchFixture(env.get_target("main"), "bad", fixture_file="f.json", vendor="403", product="6014")


# The examples in contrib/labgrid/, read by labgrid itself in a separate
# process (the example environment imports the driver module again, which
# would register its classes twice here).
EXAMPLE_ENV = r'''
from labgrid import Environment
t = Environment(config_file="contrib/labgrid/bench1.yaml").get_target("main")
d = t.get_driver("BcbenchDriver", activate=False)
for role in ("fixture", "load", "supply", "console", "capture"):
    r = getattr(d, role)
    print(role, type(r).__name__, r.name)
'''

EXAMPLE_EXPORTER = r'''
from labgrid.remote.config import ResourceConfig
from labgrid.remote.exporter import exports
c = ResourceConfig("contrib/labgrid/exporter.yaml")
for group, res in c.data.items():
    for name, params in res.items():
        if name != "location":
            print(group, name, params.get("cls", name) in exports, sorted(params.get("match", {})))
'''


def example(code):
    import subprocess
    import sys
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert got.returncode == 0, got.stderr[-2000:]
    return got.stdout.splitlines()


def test_example_environment_binds_every_role():
    assert example(EXAMPLE_ENV) == [
        "fixture BcbenchFixture None", "load USBSerialPort load",
        "supply USBSerialPort supply", "console USBSerialPort console",
        "capture SigrokDevice None"]


def test_example_exporter_config_reads():
    lines = [l for l in example(EXAMPLE_EXPORTER) if not l.startswith(("(", " "))]
    assert lines == [f"bench{b} {r} True ['ID_SERIAL_SHORT']"
                     for b in (1, 2) for r in ("load", "supply", "console")], lines
