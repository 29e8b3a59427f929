/**
 * The service's supervisor inside the bwrap sandbox, run by the host's python3 as
 * `python3 -I -S /.svc/supervise.py <config> <argv...>` with fd 3 a pipe to the host.
 *
 * Why a supervisor: rlimits must be set on the checker alone, and nothing the checker started
 * may outlive it. The supervisor forks the checker with the rlimits (address space, CPU seconds,
 * processes, file size, no core files) and fd 3 closed, waits for it, kills whatever the checker
 * left running (kill(-1) reaches every process of the sandbox's uid but itself and the
 * namespace's init), and writes one small JSON report to fd 3: exit status, signal, duration.
 * /output is a host folder on the run's disk (run-disk.ts): the host reads it once the sandbox is
 * gone (read-output-dir.ts). A checker that tampers with the report can only forge its own exit
 * status; the host reads the report with a size ceiling.
 *
 * A python checker (`python3 <script.py> [args]`, python3 being this very interpreter) is not
 * exec'd: the forked child, rlimits set and fd 3 closed, runs the script itself (`runpy`, with
 * the site directories, argv, path and environment a fresh `python3 script.py` has, and its exit
 * status). That saves a second interpreter start, most of a trivial checker's run; the isolation
 * is the sandbox's, not the process image's, so nothing is lost. Any other argv is exec'd.
 */
export const SUPERVISOR_SOURCE = String.raw`
import json, os, resource, signal, sys, time

ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8", "TMPDIR": "/tmp"}

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

def main():
    config = json.loads(sys.argv[1])
    argv = sys.argv[2:]
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            os.closerange(3, 1 << 16)
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            resource.setrlimit(resource.RLIMIT_AS, (config["memory_bytes"], config["memory_bytes"]))
            resource.setrlimit(resource.RLIMIT_CPU, (config["cpu_seconds"], config["cpu_seconds"] + 1))
            resource.setrlimit(resource.RLIMIT_FSIZE, (config["file_bytes"], config["file_bytes"]))
            resource.setrlimit(resource.RLIMIT_NPROC, (config["processes"], config["processes"]))
            os.chdir("/output")
            script = in_process_script(argv)
            if script is not None:
                return (script, argv[1:])
            os.execvpe(argv[0], argv, ENV)
        except BaseException as error:
            os.write(2, ("svc sandbox: cannot start the checker: %r\n" % (error,)).encode())
        os._exit(127)
    # Opened after the fork, so the checker's interpreter holds no object on the report's fd.
    report = os.fdopen(3, "w")
    _, status = os.waitpid(pid, 0)
    duration_ms = int((time.monotonic() - started) * 1000)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    for _ in range(3):
        try:
            os.kill(-1, signal.SIGKILL)
        except OSError:
            break
        time.sleep(0.01)
    try:
        while os.waitpid(-1, os.WNOHANG)[0] != 0:
            pass
    except ChildProcessError:
        pass
    exit_code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
    signal_name = None
    if os.WIFSIGNALED(status):
        try:
            signal_name = signal.Signals(os.WTERMSIG(status)).name
        except ValueError:
            signal_name = "SIG%d" % os.WTERMSIG(status)
    json.dump({"exit_code": exit_code, "signal": signal_name, "duration_ms": duration_ms}, report)
    report.close()
    return None

checker = main()
if checker is not None:
    # The forked child: become what "python3 script.py" would have been and run the script, then
    # end as that interpreter would (exit status, traceback, atexit, non-daemon threads joined)
    # but with _exit: this image's own teardown is not the checker's to wait for.
    script, sys.argv = checker
    del checker
    os.environ.clear()
    os.environ.update(ENV)
    sys.path[0:0] = [os.path.dirname(os.path.abspath(script))]
    import site
    site.main()
    import atexit, runpy, threading, traceback
    code = 0
    try:
        try:
            runpy.run_path(script, run_name="__main__")
        finally:
            threading._shutdown()
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
        traceback.print_exc()
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
    os._exit(code)
`;
