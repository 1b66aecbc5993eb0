// Whether a process of this host still runs, by signal 0: EPERM means it exists under another
// user. A zombie (exited, not yet reaped) still answers; callers that care read /proc.
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
