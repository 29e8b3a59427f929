/**
 * The service's supervisor inside the bwrap sandbox, run by the host's python3 as
 * `python3 -I -S /.svc/supervise.py` with fd 3 a pipe to the host. It is started ahead of its run
 * (warm-sandbox-pool.ts): it does what the checker's interpreter would do first (the checker's
 * environment, `site`), then waits on stdin for its run: the host writes the limits and the
 * checker's argv, NUL-separated (`<memory bytes> <cpu seconds> <file bytes> <processes> <argv...>`),
 * and closes it.
 *
 * In a docker container (docker-backend.ts) the same supervisor is PID 1 of a warm container, on
 * the container's stdin: it has no fd 3, so its exit status is its report (the checker's exit
 * status, or 128 + the signal that ended it, as a shell gives), and the limits the container
 * enforces itself (memory, processes, file size) come as 0: left unset.
 *
 * Why a supervisor: rlimits must be set on the checker alone, and nothing the checker started
 * may outlive it. The supervisor forks the checker with the rlimits (address space, CPU seconds,
 * processes, file size, no core files), stdin /dev/null and fd 3 closed, waits for it, kills
 * whatever the checker left running (kill(-1) reaches every process of the sandbox's uid but
 * itself and the namespace's init), and writes one small JSON report to fd 3: exit status,
 * signal, duration. /output is a host folder on the run's disk (run-disk.ts): the host reads it
 * once the sandbox is gone (read-output-dir.ts). A checker that tampers with the report can only
 * forge its own exit status; the host reads the report with a size ceiling.
 *
 * A python checker (`python3 <script.py> [args]`, python3 being this very interpreter) is not
 * exec'd: the forked child, rlimits set and fd 3 closed, runs the script itself (compiled and run
 * in a fresh `__main__` module, as runpy.run_path does, with the site directories, argv, path and
 * environment a fresh `python3 script.py` has, and its exit status). That saves a second
 * interpreter start, most of a trivial checker's run; the isolation is the sandbox's, not the
 * process image's, so nothing is lost. Any other argv is exec'd.
 *
 * Every import after the run arrives is time the checker waits for: before its wait the
 * supervisor loads site and json (which every checker needs to write result.json: re, enum,
 * functools, 5-20 ms on a busy host); after it, nothing: no runpy (pkgutil, importlib.util), no
 * traceback or signal unless a checker fails or dies by a signal.
 */
export const SUPERVISOR_SOURCE = String.raw`
import os, sys, time, resource, _signal

ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8", "TMPDIR": "/tmp"}

# What "python3 script.py" does before the script, done while the sandbox waits for its run.
os.environ.clear()
os.environ.update(ENV)
import site
site.main()
# Every checker writes /output/result.json, so nearly every one imports json (with re, enum,
# functools: most of a trivial checker's run): it is loaded while the sandbox waits, as a zygote
# preloads. The checker's own "import json" then finds it in sys.modules.
import json

def in_process_script(argv):
    """The script when argv is this interpreter on a script with no interpreter options, else None."""
    if len(argv) < 2 or argv[1].startswith("-"):
        return None
    program = argv[0]
    if "/" not in program:
        found = [os.path.join(d, program) for d in ENV["PATH"].split(":") if os.access(os.path.join(d, program), os.X_OK)]
        if not found:
            return None
        program = found[0]
    try:
        same = os.path.realpath(program) == os.path.realpath(sys.executable)
    except OSError:
        return None
    return argv[1] if same else None

def read_run():
    """The host's limits and argv: stdin up to its end, NUL-separated; None when it sent nothing."""
    chunks = []
    while True:
        chunk = os.read(0, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    fields = b"".join(chunks).split(b"\0")
    if len(fields) < 5:
        return None
    return [int(n) for n in fields[:4]], [os.fsdecode(arg) for arg in fields[4:]]

def main():
    run = read_run()
    if run is None:
        os._exit(0)
    (memory_bytes, cpu_seconds, file_bytes, processes), argv = run
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            null = os.open("/dev/null", os.O_RDONLY)
            os.dup2(null, 0)
            os.closerange(3, 1 << 16)
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            # 0: the limit is the container's (cgroup memory and pids, its fsize ulimit).
            if memory_bytes:
                resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
            if cpu_seconds:
                resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
            if file_bytes:
                resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))
            if processes:
                resource.setrlimit(resource.RLIMIT_NPROC, (processes, processes))
            os.chdir("/output")
            script = in_process_script(argv)
            if script is not None:
                return (script, argv[1:])
            os.execvpe(argv[0], argv, ENV)
        except BaseException as error:
            os.write(2, ("svc sandbox: cannot start the checker: %r\n" % (error,)).encode())
        os._exit(127)
    # Opened after the fork, so the checker's interpreter holds no object on the report's fd.
    # Without fd 3 (PID 1 of a docker container) the supervisor's exit status is the report.
    try:
        report = os.fdopen(3, "w")
    except OSError:
        report = None
    _, status = os.waitpid(pid, 0)
    duration_ms = int((time.monotonic() - started) * 1000)
    _signal.signal(_signal.SIGTERM, _signal.SIG_IGN)
    for _ in range(3):
        try:
            os.kill(-1, _signal.SIGKILL)
        except OSError:
            break
        time.sleep(0.01)
    try:
        while os.waitpid(-1, os.WNOHANG)[0] != 0:
            pass
    except ChildProcessError:
        pass
    if report is None:
        os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
    exit_code = str(os.WEXITSTATUS(status)) if os.WIFEXITED(status) else "null"
    signal_name = "null"
    if os.WIFSIGNALED(status):
        import signal
        try:
            signal_name = '"%s"' % signal.Signals(os.WTERMSIG(status)).name
        except ValueError:
            signal_name = '"SIG%d"' % os.WTERMSIG(status)
    report.write('{"exit_code": %s, "signal": %s, "duration_ms": %d}' % (exit_code, signal_name, duration_ms))
    report.close()
    return None

checker = main()
if checker is not None:
    # The forked child: become what "python3 script.py" would have been and run the script, then
    # end as that interpreter would (exit status, traceback, atexit, non-daemon threads joined)
    # but with _exit: this image's own teardown is not the checker's to wait for.
    script, sys.argv = checker
    del checker
    sys.path[0:0] = [os.path.dirname(os.path.abspath(script))]
    import atexit, io
    code = 0
    try:
        try:
            with io.open_code(script) as source:
                program = compile(source.read(), script, "exec")
            # A fresh __main__, as runpy.run_path gives the script (the supervisor's own is not its).
            module = type(sys)("__main__")
            module.__dict__.update(__file__=script, __cached__=None, __loader__=None, __package__=None, __spec__=None, __builtins__=__builtins__)
            sys.modules["__main__"] = module
            del source
            exec(program, module.__dict__)
        finally:
            if "threading" in sys.modules:
                sys.modules["threading"]._shutdown()
            atexit._run_exitfuncs()
    except SystemExit as error:
        if error.code is None:
            code = 0
        elif isinstance(error.code, int):
            code = error.code & 0xFF
        else:
            print(error.code, file=sys.stderr)
            code = 1
    except BaseException:
        import traceback
        traceback.print_exc()
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
    os._exit(code)
`;
