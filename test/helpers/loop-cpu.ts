// The most CPU this process used within one gap between two ticks of a 5 ms timer (a gap over
// 20 ms): work that holds the event loop shows as CPU, a process only waiting for a core (the
// machine's load) does not. The held-alert tests read it beside monitorEventLoopDelay's figures.
export function heldLoopCpu(): { stop(): number } {
  let heldCpuMs = 0;
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  const probe = setInterval(() => {
    const now = performance.now();
    const cpu = process.cpuUsage(lastCpu);
    if (now - last > 20) heldCpuMs = Math.max(heldCpuMs, Math.min(now - last, (cpu.user + cpu.system) / 1000));
    last = now;
    lastCpu = process.cpuUsage();
  }, 5);
  return {
    stop() {
      clearInterval(probe);
      return heldCpuMs;
    },
  };
}
