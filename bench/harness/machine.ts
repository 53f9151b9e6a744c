import { cpus, freemem, release, totalmem, type, loadavg } from 'node:os';

/** The machine a run was measured on, recorded with every result. */
export interface MachineInfo {
  cpus: number;
  cpuModel: string;
  memoryBytes: number;
  freeMemoryBytes: number;
  os: string;
  node: string;
  /** 1-minute load average at the start: other work on the machine skews every figure. */
  loadAverage: number;
}

export function machineInfo(): MachineInfo {
  const list = cpus();
  return {
    cpus: list.length,
    cpuModel: list[0]?.model.trim() ?? 'unknown',
    memoryBytes: totalmem(),
    freeMemoryBytes: freemem(),
    os: `${type()} ${release()}`,
    node: process.version,
    loadAverage: Math.round((loadavg()[0] ?? 0) * 100) / 100,
  };
}
