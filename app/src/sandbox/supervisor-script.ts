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
 */
export const SUPERVISOR_SOURCE = String.raw`
import json, os, resource, signal, sys, time

def main():
    config = json.loads(sys.argv[1])
    argv = sys.argv[2:]
    report = os.fdopen(3, "w")
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
            os.execvpe(argv[0], argv, {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8", "TMPDIR": "/tmp"})
        except BaseException as error:
            os.write(2, ("svc sandbox: cannot start the checker: %r\n" % (error,)).encode())
        os._exit(127)
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

main()
`;
