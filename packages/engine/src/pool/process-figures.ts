/** This process's CPU share since the previous call, and its resident memory. */
export class ProcessFigures {
  private lastCpu = process.cpuUsage();
  private lastAt = process.hrtime.bigint();

  read(): { cpuPercent: number; rssMb: number } {
    const cpu = process.cpuUsage(this.lastCpu);
    const now = process.hrtime.bigint();
    const elapsedUs = Number(now - this.lastAt) / 1_000;
    this.lastCpu = process.cpuUsage();
    this.lastAt = now;
    const cpuPercent = elapsedUs > 0 ? ((cpu.user + cpu.system) / elapsedUs) * 100 : 0;
    return {
      cpuPercent: Math.round(cpuPercent * 10) / 10,
      rssMb: Math.round(process.memoryUsage.rss() / 1_048_576),
    };
  }
}
