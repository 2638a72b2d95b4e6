"""bcbench as a labgrid driver (written against labgrid 0.4.1, Debian 12).

A place's bench is what its resources say: a BcbenchFixture (the FTDI
relay fixture) or none (the simulated fixture), serial ports named by
role (load, supply, console) and an optional SigrokDevice (capture).
BcbenchDriver writes that place's bench.conf (one fixed path per place,
so that every run on it takes the same bench lock), runs `bcbench run` or
`bcbench suite` with --conf, --out and --wait, and returns a
BcbenchResult read from report.json or suite.json. Bad input raises
BcbenchBadInput, a transient bench fault BcbenchBenchFault (the only one
worth a retry); a failed rule is a result, not an exception.

Load it from an environment file (imports: [path/to/bcbench_labgrid.py])
or import it; see contrib/labgrid/README.md.
"""
import json
import os
import re
import subprocess
import tempfile

import attr

from labgrid.driver.common import Driver
from labgrid.factory import target_factory
from labgrid.resource.common import Resource
from labgrid.step import step

# The exit-code table (bench/core/exit.h, docs/bcbench.1 EXIT STATUS):
# code -> the cause string report.json's status.cause carries.
CAUSES = {
    0: "ok",
    1: "rule-failed",
    2: "bad-input",
    3: "device-broke-run",
    4: "not-demonstrated",
    5: "bench-fault",
    6: "environment",
    7: "nothing-to-run",
}

# Roles a place's resources fill, and the resource classes that fill them.
ROLES = {
    "fixture": "BcbenchFixture",
    "load": "SerialPort",
    "supply": "SerialPort",
    "console": "SerialPort",
    "capture": "SigrokDevice",
}


class BcbenchError(Exception):
    """bcbench ended in a way a test cannot judge a device by; .result
    holds what is known (exit code, cause, stderr, paths)."""

    def __init__(self, message, result):
        super().__init__(message)
        self.result = result


class BcbenchBadInput(BcbenchError):
    """Exit 2: the scenario, suite, profile, bench.conf or command line is
    wrong. Retrying repeats it."""


class BcbenchBenchFault(BcbenchError):
    """A transient bench fault (exit 5; exit 3 from a bcbench from before
    the shared exit table, whose help does not name "device-broke-run"):
    an instrument, the fixture or the console lost or unreachable, the
    lock busy past --wait. The only outcome a retry may change."""


class BcbenchEnvironmentError(BcbenchError):
    """Exit 6 (disk full, unwritable output, a missing library) or a
    signal (128+N): neither is the device's nor the bench's doing."""


def cause_of(exit_code, record_cause=None, table=True):
    """The cause of an exit. table True (a bcbench with the shared table):
    the code says it, whatever a record in the directory says (a record
    can be an earlier run's when this one ended before writing); the
    record's cause only for a code outside the table. table False (a
    bcbench before the table, whose records state no cause): its 3 meant
    a bench fault or an abort."""
    if exit_code >= 128:
        return "interrupted"
    if table:
        return CAUSES.get(exit_code, record_cause or "unknown")
    if record_cause:
        return record_cause
    if exit_code == 3:
        return "bench-fault"
    return CAUSES.get(exit_code, "unknown")


def has_exit_table(tool):
    """Whether the bcbench at `tool` exits by the shared table (3 the
    device's doing, 5 the bench's), asked of the binary itself: its help
    lists the table's causes. Whether a record exists says nothing, since
    a firmware that refuses to start exits 3 before any is written."""
    proc = subprocess.run([tool, "help"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, check=False, timeout=60)
    return b"device-broke-run" in proc.stdout + proc.stderr


@attr.s(eq=False)
class BcbenchResult:
    """What one `bcbench run` or `bcbench suite` gave."""
    command = attr.ib()            # the argv run
    exit_code = attr.ib()
    cause = attr.ib()              # "ok", "rule-failed", "bench-fault", ...
    out = attr.ib()                # the --out directory
    conf = attr.ib()               # the place's bench.conf (the same path every run)
    stderr = attr.ib(default="")
    report = attr.ib(default=None)  # report.json (run) or None
    suite = attr.ib(default=None)   # suite.json (suite) or None
    verdict = attr.ib(default=None)  # run: the judged side's verdict
    verdicts = attr.ib(default=attr.Factory(dict))  # run: {"device": .., "port": ..}
    judges = attr.ib(default=None)  # run: "device" or "port"
    state = attr.ib(default=None)   # run: status.state
    reason = attr.ib(default=None)  # run: status.reason
    entries = attr.ib(default=attr.Factory(list))  # suite: one dict per entry
    record = attr.ib(default=None, repr=False)  # the parsed JSON

    @property
    def ok(self):
        return self.exit_code == 0

    @property
    def retryable(self):
        return self.cause == "bench-fault"

    @property
    def reports(self):
        """Every report.json the command wrote (absolute paths)."""
        if self.report:
            return [self.report]
        return [e["report"] for e in self.entries if e.get("report")]


@target_factory.reg_resource
@attr.s(eq=False)
class BcbenchFixture(Resource):
    """The bench's FTDI relay fixture: USB ids (four hex digits each) and
    its wiring file (fixtures/NAME.json under bcbench's data dir, or a
    path). With no ids, bcbench takes them from the wiring file."""
    fixture_file = attr.ib(validator=attr.validators.instance_of(str))
    vendor = attr.ib(default=None, validator=attr.validators.optional(attr.validators.instance_of(str)))
    product = attr.ib(default=None, validator=attr.validators.optional(attr.validators.instance_of(str)))
    serial = attr.ib(default=None, validator=attr.validators.optional(attr.validators.instance_of(str)))

    def __attrs_post_init__(self):
        super().__attrs_post_init__()
        for what, val in (("vendor", self.vendor), ("product", self.product)):
            if val is not None and not re.fullmatch(r"[0-9a-fA-F]{4}", val):
                raise ValueError(f"BcbenchFixture {what} {val!r}: expected four hex digits (e.g. 0403)")
        if (self.vendor is None) != (self.product is None):
            raise ValueError("BcbenchFixture: give vendor and product together, or neither")
        if self.serial is not None and self.vendor is None:
            raise ValueError("BcbenchFixture: a serial needs vendor and product")

    def spec(self):
        """bench.conf's fixture value."""
        if self.vendor is None:
            return "ftdi"
        spec = f"ftdi:{self.vendor.lower()}:{self.product.lower()}"
        return spec + (f":{self.serial}" if self.serial else "")


def _opt_str():
    return attr.ib(default=None, validator=attr.validators.optional(attr.validators.instance_of(str)))


@target_factory.reg_driver
@attr.s(eq=False)
class BcbenchDriver(Driver):
    """Runs bcbench on the bench the target's resources describe.

    Resources fill roles by name: a serial port (RawSerialPort,
    USBSerialPort) named load, supply or console, a SigrokDevice for the
    capture, a BcbenchFixture for the fixture; the environment's
    `bindings:` may map a role to another name. A role with no resource
    stays simulated. The attributes are bench.conf's other keys."""
    bindings = {}  # per instance, from the resources there are (__attrs_post_init__)

    load_dialect = _opt_str()
    supply_dialect = _opt_str()
    supply_mode = _opt_str()
    capture_map = _opt_str()
    capture_rate = _opt_str()
    instrument_timeout = _opt_str()
    instrument_retries = attr.ib(default=None, validator=attr.validators.optional(attr.validators.instance_of(int)))
    max_load = _opt_str()
    max_vbus = _opt_str()
    max_power = _opt_str()
    limits = _opt_str()
    datadir = _opt_str()
    lock_dir = _opt_str()
    fwdir = _opt_str()
    state_dir = _opt_str()
    out_dir = attr.ib(default="bcbench-out", validator=attr.validators.instance_of(str))
    wait = attr.ib(default=600, validator=attr.validators.instance_of(int))
    extra = attr.ib(default=attr.Factory(dict), validator=attr.validators.instance_of(dict))

    def __attrs_post_init__(self):
        # labgrid binds every name in `bindings` and, without a name from the
        # environment, takes the target's only resource of the class: one
        # serial port would then fill load, supply and console (a duplicate
        # binding error), and three would fill none. So a role is bound only
        # to a resource that names it (or its mapped name), and not at all
        # when there is none. labgrid 0.4.1 offers no getter for the map the
        # environment set for this driver, hence _binding_map.
        target = self.target
        mapping = dict(getattr(target, "_binding_map", {}) or {})
        bindings = {}
        for role, cls_name in ROLES.items():
            cls = target_factory.class_from_string(cls_name)
            name = mapping.get(role)
            if name is None:
                named = [r for r in target.resources if isinstance(r, cls) and r.name == role]
                if named:
                    name = role
                elif role in ("fixture", "capture"):
                    only = [r for r in target.resources if isinstance(r, cls)]
                    if len(only) == 1:
                        bindings[role] = cls_name
                        continue
            if name is None:
                setattr(self, role, None)
                continue
            mapping[role] = name
            bindings[role] = cls_name
        self.bindings = bindings
        target.set_binding_map(mapping)
        super().__attrs_post_init__()
        env = self.target.env
        self.tool = (env.config.get_tool("bcbench") if env else None) or "bcbench"
        self._runs = 0
        self._table = None  # has_exit_table(self.tool), asked at the first run

    # ---- bench.conf ----

    def conf_lines(self):
        """bench.conf for this place, as (key, value) pairs."""
        lines = []
        fixture = getattr(self, "fixture", None)
        if fixture is not None:
            lines += [("fixture", fixture.spec()), ("fixture_file", fixture.fixture_file)]
        for role in ("load", "supply"):
            port = getattr(self, role, None)
            if port is not None:
                lines.append((role, f"scpi:{self._port_of(role, port)}@{port.speed}"))
                dialect = getattr(self, f"{role}_dialect")
                if dialect:
                    lines.append((f"{role}_dialect", dialect))
        if self.supply_mode:
            lines.append(("supply_mode", self.supply_mode))
        console = getattr(self, "console", None)
        if console is not None:
            lines.append(("console", f"{self._port_of('console', console)}@{console.speed}"))
        capture = getattr(self, "capture", None)
        if capture is not None:
            lines.append(("capture", f"sigrok:{capture.driver}"))
        for key in ("capture_map", "capture_rate", "instrument_timeout", "instrument_retries",
                    "max_load", "max_vbus", "max_power", "limits", "lock_dir"):
            val = getattr(self, key)
            if val is not None:
                lines.append((key, str(val)))
        # Without one bcbench finds its data beside its binary (an install's
        # PREFIX/share/bcbench, a build's source tree), as it does without
        # --conf; a datadir here would override that for every run.
        if self.datadir is not None:
            lines.append(("datadir", self.datadir))
        given = {k for k, _ in lines}
        for key, val in self.extra.items():
            if str(key) in given:
                raise ValueError(f"{self.display_name}: extra {key!r}: already set by a resource or an attribute")
            lines.append((str(key), str(val)))
        for key, val in lines:
            if "\n" in val or not val.strip():
                raise ValueError(f"{self.display_name}: bench.conf {key} {val!r}: expected one non-empty line")
        return lines

    @staticmethod
    def _port_of(role, port):
        if not port.port:
            raise ValueError(f"{role}: {port.display_name} has no port (not present?)")
        return port.port

    def place_name(self):
        """The place this target is (a RemotePlace's name), else the
        target's name."""
        for res in self.target.resources:
            if type(res).__name__ == "RemotePlace":
                return res.name
        return self.target.name

    def conf_path(self):
        """The place's bench.conf: STATE_DIR/PLACE.conf, STATE_DIR the
        state_dir attribute, else $XDG_STATE_HOME/bcbench-labgrid
        (~/.local/state/bcbench-labgrid). bcbench names the bench lock by
        the conf's path (unless the fixture names a serial), so every run
        on a place must give the same path to meet the others there."""
        base = self.state_dir
        if base is None:
            xdg = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
            base = os.path.join(xdg, "bcbench-labgrid")
        name = re.sub(r"[^A-Za-z0-9._-]", "_", self.place_name())
        return os.path.join(os.path.abspath(base), name + ".conf")

    def write_conf(self, path=None):
        """Write bench.conf to path (default conf_path()) and return the
        path. Atomically: a run starting meanwhile reads the old file or the
        new one, never half of it."""
        path = os.path.abspath(path or self.conf_path())
        text = "# written by BcbenchDriver for labgrid target {}\n".format(self.target.name)
        text += "".join(f"{k} = {v}\n" for k, v in self.conf_lines())
        folder = os.path.dirname(path)
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(path) + ".", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.chmod(tmp, 0o644)
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        return path

    # ---- running ----

    def _new_out(self, kind, name, out):
        if out is None:
            self._runs += 1
            stem = os.path.splitext(os.path.basename(name))[0]
            out = os.path.join(self.out_dir, self.target.name, f"{self._runs:03d}-{kind}-{stem}")
        out = os.path.abspath(out)
        os.makedirs(out, exist_ok=True)
        # An earlier run's record in a reused directory would be read as
        # this run's when this one ends before writing its own.
        for stale in ("report.json", "suite.json"):
            try:
                os.unlink(os.path.join(out, stale))
            except FileNotFoundError:
                pass
        return out

    def _exit_table(self):
        if self._table is None:
            self._table = has_exit_table(self.tool)
        return self._table

    def _call(self, argv, out, conf):
        proc = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, check=False)
        with open(os.path.join(out, "bcbench.log"), "wb") as f:
            f.write(proc.stdout + proc.stderr)
        rc = proc.returncode if proc.returncode >= 0 else 128 - proc.returncode
        return BcbenchResult(command=argv, exit_code=rc, cause=None, out=out, conf=conf,
                             stderr=proc.stderr.decode("utf-8", "replace"))

    @Driver.check_active
    @step(args=["scenario"], result=True)
    def run(self, scenario, *, out=None, wait=None, args=()):
        """`bcbench run SCENARIO` on this bench; args: further options
        (e.g. ["--charger", "dcp-1a"], or ["--firmware", "FILE.so"]: run
        does not look in fwdir). Returns a BcbenchResult."""
        out = self._new_out("run", scenario, out)
        conf = self.write_conf()
        argv = [self.tool, "run", "-q", "--conf", conf, "--out", out,
                "--wait", str(self.wait if wait is None else wait), *args, scenario]
        res = self._call(argv, out, conf)
        path = os.path.join(out, "report.json")
        record_cause = None
        if os.path.exists(path) and res.exit_code != 2:
            with open(path, encoding="utf-8") as f:
                rec = json.load(f)
            status = rec.get("status") or {}
            record_cause = status.get("cause")
            res.report, res.record = path, rec
            res.verdict, res.judges = rec.get("verdict"), rec.get("judges")
            res.verdicts = dict(rec.get("verdicts") or {})
            res.state, res.reason = status.get("state"), status.get("reason")
        res.cause = cause_of(res.exit_code, record_cause, table=self._exit_table())
        return self._check(res)

    @Driver.check_active
    @step(args=["suite_file"], result=True)
    def suite(self, suite_file, *, out=None, wait=None, args=()):
        """`bcbench suite FILE` on this bench (one entry at a time when it
        has hardware); args: further options (--filter, --shard, --junit).
        Returns a BcbenchResult whose entries carry each report's verdicts."""
        out = self._new_out("suite", suite_file, out)
        conf = self.write_conf()
        argv = [self.tool, "suite", "-q", "--conf", conf, "--out", out,
                "--wait", str(self.wait if wait is None else wait)]
        if self.fwdir:
            argv += ["--fwdir", self.fwdir]
        argv += [*args, suite_file]
        res = self._call(argv, out, conf)
        path = os.path.join(out, "suite.json")
        if os.path.exists(path) and res.exit_code != 2:
            with open(path, encoding="utf-8") as f:
                rec = json.load(f)
            res.suite, res.record = path, rec
            for e in rec.get("entries", []):
                entry = {k: e.get(k) for k in ("id", "outcome", "as_expected", "exit_code",
                                               "exit_cause", "cause")}
                entry["report"], entry["verdicts"] = None, {}
                if e.get("report"):
                    rpath = os.path.join(out, e["report"]["path"])
                    entry["report"] = rpath
                    try:
                        with open(rpath, encoding="utf-8") as f:
                            entry["verdicts"] = dict(json.load(f).get("verdicts") or {})
                    except (OSError, ValueError):
                        pass
                res.entries.append(entry)
        res.cause = cause_of(res.exit_code, None, table=self._exit_table())
        return self._check(res)

    def _check(self, res):
        last = res.stderr.strip().splitlines()[-3:]
        said = ("; bcbench said: " + " | ".join(last)) if last else ""
        where = f"{self.target.name}: {os.path.basename(res.command[-1])}"
        if res.exit_code == 2:
            raise BcbenchBadInput(f"{where}: bad input (exit 2){said}", res)
        if res.cause == "bench-fault":
            raise BcbenchBenchFault(f"{where}: bench fault (exit {res.exit_code}), worth a retry{said}", res)
        if res.exit_code == 6 or res.exit_code >= 128:
            raise BcbenchEnvironmentError(f"{where}: {res.cause} (exit {res.exit_code}){said}", res)
        return res
