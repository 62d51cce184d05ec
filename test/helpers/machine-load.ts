// Whether the machine is quiet enough for a bound that times work against the wall clock: the
// one-minute load average under the core count (nothing waits for a core, most of the time). A test
// whose figure moves with the machine's load checks that figure only then, and at any load checks
// what does not move with it (CPU used, what waited for what), saying the load in its output.
import os from 'node:os';

export interface MachineLoad {
  /** The one-minute load average. */
  load: number;
  cores: number;
  /** The load average is under the core count. */
  quiet: boolean;
  /** "load average 1.4 on 2 cores", for a test's output. */
  said: string;
}

export function machineLoad(): MachineLoad {
  const [load = 0] = os.loadavg();
  const cores = os.cpus().length;
  return { load, cores, quiet: load < cores, said: `load average ${load.toFixed(1)} on ${cores} cores` };
}
